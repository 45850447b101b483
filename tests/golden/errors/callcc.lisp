;; call/cc as an escape: from nested loops, from for-each, with several values.
(write (call/cc (lambda (k) (+ 1 (k 42))))) (newline)
(write (+ 1 (call/cc (lambda (k) 1)))) (newline)
(write (call-with-current-continuation (lambda (k) 'normal-return))) (newline)
(define (find-first pred lst)
  (call/cc (lambda (return)
    (for-each (lambda (x) (when (pred x) (return x))) lst)
    #f)))
(write (list (find-first even? '(1 3 4 5)) (find-first even? '(1 3)))) (newline)
;; Escape from two nested named-let loops.
(write (call/cc
         (lambda (outer)
           (let loop ((i 0))
             (let inner ((j 0))
               (cond ((= (* i j) 12) (outer (list i j)))
                     ((< j 5) (inner (+ j 1)))
                     (else (loop (+ i 1)))))))))
(newline)
;; Escape from deep non-tail recursion.
(define (product lst)
  (call/cc (lambda (break)
    (let rec ((l lst))
      (cond ((null? l) 1)
            ((= (car l) 0) (break 0))
            (else (* (car l) (rec (cdr l)))))))))
(write (list (product '(1 2 3 4)) (product '(1 2 0 4)))) (newline)
;; Several values through a continuation.
(call-with-values (lambda () (call/cc (lambda (k) (k 1 2 3)))) (lambda args (write args) (newline)))
;; The continuation is a procedure.
(write (call/cc procedure?)) (newline)
;; Escaping out of a guard body and out of a map.
(write (call/cc (lambda (k) (guard (e (#t 'guard-caught)) (k 'escaped-past-guard))))) (newline)
(write (call/cc (lambda (k) (map (lambda (x) (if (= x 3) (k 'stopped-at-3) x)) '(1 2 3 4))))) (newline)
;; call-with-escape-continuation is the same thing.
(write (call-with-escape-continuation (lambda (k) (k 'esc)))) (newline)

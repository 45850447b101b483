;; vector-for-each and string-for-each, like for-each, can be resumed: a
;; generator that walks a vector or a string with them yields every element.
(define (make-walker walk seq)
  (define return #f)
  (define resume
    (lambda (ignored)
      (walk (lambda (x) (call/cc (lambda (k) (set! resume k) (return x)))) seq)
      (return 'done)))
  (lambda () (call/cc (lambda (r) (set! return r) (resume #f)))))

(define (drain gen)
  (let loop ((x (gen)) (acc '()))
    (if (eq? x 'done) (reverse acc) (loop (gen) (cons x acc)))))

(write (drain (make-walker vector-for-each #(1 2 3)))) (newline)
(write (drain (make-walker string-for-each "aλ😀"))) (newline)
(write (drain (make-walker for-each '(x y)))) (newline)

;; Several sequences at once, shortest first.
(define saved #f)
(define seen '())
(vector-for-each (lambda (a b) (call/cc (lambda (k) (if (= a 1) (set! saved k)))) (set! seen (cons (+ a b) seen)))
                 #(1 2 3) #(10 20))
(if (< (length seen) 4) (saved #f))
(write (reverse seen)) (newline)

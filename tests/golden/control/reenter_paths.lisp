;; Continuations captured through the evaluator's own call paths (a call/cc in
;; tail position, through apply and call-with-values, inside for-each and
;; dynamic-wind, and a continuation invoked in tail position) are re-entrant.

(define (grab) (call/cc (lambda (c) c)))   ; call/cc in tail position
(define (reenter-twice thunk)
  (let ((log '()))
    (let ((k (thunk)))
      (set! log (cons 'seen log))
      (if (procedure? k) (k 'again))        ; invoked in tail position
      (list k (length log)))))
(write (reenter-twice grab)) (newline)
(write (reenter-twice (lambda () (apply call/cc (list (lambda (c) c)))))) (newline)

(define n 0)
(define saved #f)
(define results '())
(let ()
  (set! results
        (cons (call-with-values
                  (lambda () (call/cc (lambda (c) (set! saved c) (values 1 2))))
                (lambda (a b) (set! n (+ n 1)) (list a b n)))
              results))
  (if (< n 3) (saved (* n 10) (* n 20))))
(write (reverse results)) (newline)

;; for-each over a list: each element resumes after the loop was left.
(define seen '())
(define resume #f)
(define (walk)
  (for-each (lambda (x)
              (call/cc (lambda (c) (set! resume c)))
              (set! seen (cons x seen)))
            '(a b c)))
(define count 0)
(let ()
  (walk)
  (set! count (+ count 1))
  (if (< count 3) (resume #f)))
(write (list count seen)) (newline)

;; A builtin whose frame cannot be resumed still lets an escape through.
(write (call/cc (lambda (k) (map (lambda (x) (if (= x 2) (k 'out) x)) '(1 2 3))))) (newline)

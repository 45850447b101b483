;; An undefined variable inside a procedure.
(define (use-it) (+ 1 undefined-thing))
(use-it)

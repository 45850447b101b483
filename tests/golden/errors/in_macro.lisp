;; User code passed into a macro keeps its own location after expansion.
(define-syntax my-or
  (syntax-rules ()
    ((_ a b) (let ((t a)) (if t t b)))))
(define (g)
  (my-or #f
         (car 5)))
(g)

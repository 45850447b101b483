;; A builtin calling a Lisp procedure: the procedure appears, the builtin does not.
(define (bad-square x) (* x x))
(define (run lst) (length (map bad-square lst)))
(run '(1 2 three))

;; tensor-argmax (SPEC §13): the first largest index along an axis (the last by
;; default), as a float; a NaN counts as largest (the first NaN wins), as NumPy and
;; PyTorch. No gradient flows through it. Eager, graph-eval, graph-compile and jit
;; agree bit for bit.
(include "parts/paths.lisp")

(define m (tensor '((1.0 5.0 3.0 5.0) (7.0 -2.0 7.0 0.0) (-1.0 -1.0 -1.0 -1.0))))
(show (tensor-argmax m))        ; last axis; ties go to the first index
(show (tensor-argmax m 0))
(show (tensor-argmax m -2))
(show (tensor-argmax (tensor '(3.0 +nan.0 9.0 +nan.0))))           ; the first NaN
(show (tensor-argmax (tensor '(-inf.0 -inf.0 -5.0))))
(show (tensor-argmax (tensor '(-0.0 0.0))))                        ; -0.0 = 0.0: the first
(define c (tensor-rand '(2 3 4) 7))
(show (tensor-argmax c 1))
(write (paths tensor-argmax m)) (newline)
(write (paths (lambda (x) (tensor-argmax x 0)) c)) (newline)
(write (paths (lambda (x) (tensor-argmax x 1)) c)) (newline)
(write (paths tensor-argmax (tensor '(3.0 +nan.0 9.0 +nan.0)))) (newline)

;; No gradient: a loss using argmax only as a weight gets the weight's gradient.
(define (loss x) (tensor-sum (* x (tensor-argmax x))))
(write (graph-grad loss (tensor '((1.0 3.0) (4.0 2.0))))) (newline)
(write (graph-grad (lambda (x) (tensor-sum (tensor-argmax x))) m)) (newline)
(define sq (tensor-rand '(3 3) 2))
(write (equal? (graph-grad loss sq) ((graph-compile-grad loss sq) sq))) (newline)
(write (graph-ir tensor-argmax m)) (newline)

;; Errors, eager and traced alike.
(define (err thunk) (guard (e (#t (display (error-object-message e)) (newline))) (thunk)))
(err (lambda () (tensor-argmax 3.0)))
(err (lambda () (tensor-argmax "x")))
(err (lambda () (tensor-argmax m 2)))
(err (lambda () (tensor-argmax m -3)))
(err (lambda () (tensor-argmax m 0.5)))
(err (lambda () (tensor-argmax (tensor 2.0))))
(err (lambda () (graph-eval (lambda (x) (tensor-argmax x 2)) m)))
(err (lambda () (graph-eval (lambda (x) (tensor-argmax x)) 3.0)))

; a number entering a tensor becomes a float (inexact): bignums and rationals
; too, in constructors, element-wise operations, graphs and jitted kernels
(define (p x) (write x) (newline))
(p (tensor (list 1/2 (expt 2 70) -3)))
(p (tensor '((1/4 3/4) (1 2))))
(p (tensor 1/3))
(p (tensor-add (tensor '(1.0 2.0)) 1/4))
(p (+ (tensor '(1.0 2.0)) 1/3))
(p (* (tensor '(1.0 2.0)) (expt 10 20)))
(p (* (tensor '(1.0 2.0)) (expt 10 400)))
(p ((grad (lambda (x) (* x x))) 1/2))
(p ((grad (lambda (x y) (* x y))) (expt 2 70) 1/8))
(p ((jit (lambda (x y) (+ x y))) 1/2 (tensor '(1.0 2.0))))
(p ((jit (lambda (x) (* x 2))) 3/4))

;; The loops that forms.lisp (eager, graph-eval, jit) and kernels.lisp (native
;; kernels) both run, included by them (no .out file, so the runner does not run it
;; alone). Each is a procedure of its arguments, with the arguments beside it.

;; fori-loop over a number, with the index used.
(define (halve i c) (+ (* c 0.5) (* i 0.25)))
(define (f1 x) (fori-loop 7 halve x))

;; fori-loop over a tree: a list of a tensor and a named entry list.
(define w (tensor '((0.5 -0.25) (0.125 0.75))))
(define (step i c)
  (list (tensor-tanh (matmul (car c) w))
        (list (cons 'n (+ (cdr (assq 'n (cadr c))) 1.0))
              (cons 's (+ (cdr (assq 's (cadr c))) (tensor-sum (car c)))))))
(define init (list (tensor '((1.0 2.0) (3.0 -1.0))) (list (cons 'n 0.0) (cons 's 0.0))))
(define (f2 c) (fori-loop 4 step c))

;; scan: an Elman cell over a 5 x 3 sequence; YS stacked along axis 0.
(define u (tensor '((0.3 -0.2 0.1) (0.05 0.4 -0.3) (-0.1 0.2 0.25))))
(define xs (tensor '((1.0 0.0 -1.0) (0.5 0.5 0.5) (-0.3 0.2 0.9) (0.0 1.0 0.0) (2.0 -1.0 0.5))))
(define (cell h x)
  (let ((h2 (tensor-tanh (tensor-add (matmul h u) x))))
    (cons h2 (list h2 (tensor-sum h2)))))
(define (f3 h xs) (let ((r (scan cell h xs))) (list (car r) (cdr r))))
(define h0 (tensor '(0.1 -0.1 0.2)))
;; A rank-1 XS gives numbers; a tree XS is sliced leaf by leaf.
(define (f4 c xs) (scan (lambda (c x) (cons (+ (* c 0.9) (car x)) (* (cadr x) c))) c xs))
(define xs4 (list (tensor '(1.0 2.0 3.0)) (tensor '(0.5 0.25 0.125))))
(define (f4l c xs) (let ((r (f4 c xs))) (list (car r) (cdr r))))

;; while-loop: Collatz-like steps on a float, until it passes 100.
(define (grow c) (list (+ (car c) 1.0) (* (cadr c) 1.7)))
(define (f5 x) (while-loop (lambda (c) (< (cadr c) 100.0)) grow (list 0.0 x)))

;; Nesting: a scan inside a fori-loop, a while inside a scan.
(define (f6 h xs) (fori-loop 3 (lambda (i h) (car (scan cell h xs))) h))
(define (f7 c xs)
  (let ((r (scan (lambda (c x) (let ((y (while-loop (lambda (v) (< v 10.0)) (lambda (v) (* v (+ 1.5 x))) c)))
                                (cons (- y 9.0) y)))
                 c xs)))
    (list (car r) (cdr r))))
(define xs7 (tensor '(0.0 0.5 1.0 0.25)))

;; A captured traced value A used in the body, N steps.
(define (g n) (lambda (x a) (fori-loop n (lambda (i c) (+ (* c a) (exp a))) x)))

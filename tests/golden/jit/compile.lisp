;; graph-compile and graph-compile-grad against graph-eval and graph-grad
;; (docs/graph.md, docs/jit.md): same values, bit for bit (equal? compares tensor bits and
;; eqv? float bits), on numbers, rank-0 tensors and odd shapes.
(define (same? a b) (equal? a b))

;; numbers in, numbers out
(define (poly x y) (+ (* 3 x x) (- (* x y) (/ y 7)) (sqrt (+ 1 (* x x)))))
(define kp (graph-compile poly 1.0 2.0))
(display (list (kp 1.5 -2.0) (graph-eval poly 1.5 -2.0) (eqv? (kp 1.5 -2.0) (graph-eval poly 1.5 -2.0))))
(newline)
(define kpg (graph-compile-grad poly 1.0 2.0))
(display (kpg 0.3 0.7)) (newline)
(display (same? (kpg 0.3 0.7) (graph-grad poly 0.3 0.7))) (newline)

;; a select (if on a comparison), exp/log/sin/sigmoid, max
(define (act x) (if (> x 0.5) (exp (sin x)) (log (+ 2 (* x x)))))
(define ka (graph-compile-grad act 0.0))
(display (map (lambda (v) (same? (ka v) (graph-grad act v))) '(-1.0 0.25 0.5 0.75 3.0))) (newline)

;; tensors: broadcasting, axis reductions, transpose, odd shapes
(define x (tensor '((1 -2 3 0.5 -0.25) (0 4 -1 2 1.5) (-3 0.75 2 -0.5 1))))   ; 3x5
(define v (tensor '(0.5 -1 2 0.25 -0.75)))                                     ; 5
(define w (tensor '((1 0.5 -1) (2 -0.5 0.25) (0 1 1) (-1 2 0.5) (0.5 0.5 -2))))  ; 5x3
(define (layer x v w)
  (tensor-mean (tensor-sigmoid (matmul (tensor-mul x v) w))))
(define kl (graph-compile-grad layer x v w))
(display kl) (newline)
(display (same? (kl x v w) (graph-grad layer x v w))) (newline)
(define (axes x)
  (tensor-add (tensor-sum x 0) (tensor-max (transpose x) 1)))
(define kx (graph-compile axes x))
(display (kx x)) (newline)
(display (same? (kx x) (graph-eval axes x))) (newline)
(define (mx x) (tensor-max (tensor-mul x x)))
(display (same? ((graph-compile-grad mx x) x) (graph-grad mx x))) (newline)

;; a rank-0 tensor argument gets a rank-0 gradient; an unused argument zeros
(define (r0 s x u) (tensor-sum (tensor-mul x s)))
(define s0 (tensor 2.0))
(define kr (graph-compile-grad r0 s0 x 5.0))
(display (kr s0 x 5.0)) (newline)
(display (same? (kr s0 x 5.0) (graph-grad r0 s0 x 5.0))) (newline)

;; kernels are procedures: apply, map, higher-order code
(display (list (procedure? kp) (kernel? kp) (kernel? poly))) (newline)
(display (apply kp '(1.0 1.0))) (newline)
(display (map kp '(1.0 2.0 3.0) '(0.0 0.0 0.0))) (newline)
(display ((lambda (f) (f 2.0 2.0)) kp)) (newline)
(write (graph-compile (lambda (a) (* a a)) 1.0)) (newline)

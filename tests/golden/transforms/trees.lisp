;; Trees as arguments and results of traced procedures (docs/graph.md, "Trees"):
;; leaves are params depth-first, gradients keep their argument's structure, and
;; every path (eager, graph-eval, graph-grad, compiled) agrees bit for bit.
(define w1 (tensor '((0.5 -1.0) (2.0 0.25))))
(define b1 (tensor '(0.1 -0.2)))
(define w2 (tensor '((1.5) (-0.5))))
(define x (tensor '((1.0 2.0) (-1.0 0.5) (0.0 3.0))))
(define (mlp params x)
  (let ((l1 (car params)) (w2 (cadr params)))
    (matmul (tensor-tanh (+ (matmul x (car l1)) (cadr l1))) w2)))
(define (loss params x) (tensor-mean (square (mlp params x))))
(define params (list (list w1 b1) w2))

;; graph-eval of a tree argument equals the eager call, bit for bit
(display (equal? (graph-eval mlp params x) (mlp params x))) (newline)

;; graph-grad: (LOSS G-params G-x) with G-params shaped like params
(define r (graph-grad loss params x))
(display (= (car r) (loss params x))) (newline)
(display (map tensor-shape (list (car (car (cadr r))) (cadr (car (cadr r))) (cadr (cadr r)) (caddr r))))
(newline)

;; vectors are trees too, and a number leaf gets a number gradient
(display (graph-grad (lambda (v) (* (vector-ref v 0) (vector-ref v 1))) (vector 3.0 4.0))) (newline)
(display (graph-grad (lambda (p) (+ (car p) (tensor-sum (cadr p)))) (list 2.0 (tensor '(1.0 2.0))))) (newline)

;; an empty list is a tree with no leaves
(display (graph-grad (lambda (e x) (* x x)) '() 3.0)) (newline)

;; a traced procedure may return a tree; the same node may appear twice
(display (graph-eval (lambda (a b) (list (+ a b) (vector (* a b) a) a)) 2.0 5.0)) (newline)
(display (graph-ir (lambda (a b) (list (+ a b) a)) 1.0 2.0)) (newline)

;; compiled kernels take and return the same trees, bit-identical to the interpreter
(define k (graph-compile-grad loss params x))
(display (equal? (k params x) r)) (newline)
(define params2 (list (list (* 2.0 w1) (- b1)) (* 0.5 w2)))
(display (equal? (k params2 x) (graph-grad loss params2 x))) (newline)
(define kf (graph-compile (lambda (p) (list (car p) (* 2.0 (cadr p)) (vector 1.0 (car p)))) (list 1.0 b1)))
(display (kf (list 3.0 b1))) (newline)
(display (equal? (kf (list 3.0 b1))
                 (graph-eval (lambda (p) (list (car p) (* 2.0 (cadr p)) (vector 1.0 (car p)))) (list 3.0 b1))))
(newline)

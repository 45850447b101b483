;; Transforms compose (docs/graph.md, "Nesting"): graph-grad and grad inside a
;; traced function record into the enclosing trace, so gradients of gradients
;; work and a whole training step compiles to one kernel.
(define (f x) (* x x x))
(define (d f) (lambda (x) (cadr ((grad f) x))))
(display ((grad (d f)) 2.0)) (newline)          ; f'(2) = 12, f''(2) = 12
(display ((grad (d (d f))) 2.0)) (newline)      ; f''(2) = 12, f'''(2) = 6
(display ((d (d (d (d f)))) 2.0)) (newline)     ; f'''' = 0

;; second derivatives against central finite differences of the first
(define (close? a b) (< (abs (- a b)) (* 1e-6 (+ 1.0 (abs b)))))
(define (fd-second g x)
  (let ((h 1e-5)) (/ (- ((d g) (+ x h)) ((d g) (- x h))) (* 2.0 h))))
(define (check name g x) (display (list name (close? ((d (d g)) x) (fd-second g x)))) (newline))
(check 'tanh (lambda (x) (tensor-sum (tensor-tanh (* x (tensor '(1.0 -2.0 0.5)))))) 0.3)
(check 'log-sum-exp (lambda (x) (log (tensor-sum (exp (* x (tensor '(1.0 2.0 3.0))))))) 0.7)
(check 'sigmoid (lambda (x) (tensor-sum (tensor-sigmoid (+ x (tensor '(0.0 1.0)))))) -0.4)

;; a Hessian-vector product of a small MLP loss: the gradient of <grad L(w), v>
(define x (tensor '((1.0 2.0) (-1.0 0.5) (0.0 3.0))))
(define w (tensor '((0.5 -1.0) (2.0 0.25))))
(define v (tensor '((1.0 0.0) (0.0 -1.0))))
(define (mlp-loss w) (tensor-mean (square (tensor-tanh (matmul x w)))))
(define (hvp w v) (cadr ((grad (lambda (w) (tensor-sum (* (cadr ((grad mlp-loss) w)) v)))) w)))
(define (grad-at w) (cadr ((grad mlp-loss) w)))
(define h 1e-5)
(define fd (/ (- (grad-at (+ w (* h v))) (grad-at (- w (* h v)))) (* 2.0 h)))
(display (< (tensor-max (abs (- (hvp w v) fd))) 1e-7)) (newline)

;; captured values are constants to an inner gradient, as in JAX:
;; d/dx [ x * d/dy (x * y) ] = d/dx [ x * x ] = 2x
(display ((grad (lambda (x) (* x (cadr ((grad (lambda (y) (* x y))) 3.0))))) 5.0)) (newline)

;; one kernel for a whole training step: loss, gradients and the SGD update
(define b (tensor '(0.5 -0.5)))
(define (loss w b x) (tensor-mean (square (+ (matmul x w) b))))
(define (step w b x)
  (let ((r (graph-grad loss w b x)))
    (list (- w (* 0.01 (cadr r))) (- b (* 0.01 (caddr r))) (car r))))
(define k (graph-compile step w b x))
(display (equal? (k w b x) (step w b x))) (newline)
(define (train k w b n)
  (if (= n 0) (list w b)
      (let ((r (k w b x))) (train k (car r) (cadr r) (- n 1)))))
(display (equal? (train k w b 20) (train step w b 20))) (newline)
(display (caddr (k w b x))) (newline)
;; grad inside a traced function, with ARGNUMS and a tree of parameters
(define (loss2 p x) (tensor-mean (square (+ (matmul x (car p)) (cadr p)))))
(define (step2 p x)
  (let ((g (cadr ((grad loss2 0) p x))))
    (map (lambda (t gt) (- t (* 0.1 gt))) p g)))
(display (equal? (graph-eval step2 (list w b) x) (step2 (list w b) x))) (newline)
(display (equal? ((graph-compile step2 (list w b) x) (list w b) x) (step2 (list w b) x))) (newline)

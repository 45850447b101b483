;; tensor-gelu: PyTorch's gelu(approximate='tanh'),
;; (0.5 x) (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) with Kiln's tanh; eager (scalar and
;; vector loops), graph-eval and compiled kernels agree bit for bit; its gradient is
;; PyTorch's formula, built from ops with gradients, so second derivatives work.
(define xs (tensor '(-800.0 -30.0 -3.0 -1.5 -0.0 0.0 1e-300 0.5 1.0 3.0 30.0 800.0 +inf.0 -inf.0 +nan.0)))
(write (tensor->list (tensor-gelu xs))) (newline)
(write (tensor-gelu 1.0)) (newline)
;; 1000 points: the vector loop and its scalar tail, against the scalar formula
(define many (tensor-mul 8.0 (tensor-sub (tensor-rand '(1001) 5) 0.5)))
(write (equal? (tensor-gelu many) (tensor-map (lambda (x) (tensor-gelu x)) many))) (newline)
(write (equal? (tensor-gelu many) (graph-eval tensor-gelu many))) (newline)
(write (equal? (tensor-gelu many) ((jit tensor-gelu) many))) (newline)
(define (loss x) (tensor-sum (tensor-gelu x)))
(define g (graph-grad loss xs))
(write (tensor->list (cadr g))) (newline)
(write (equal? (graph-grad loss many) ((graph-compile-grad loss many) many))) (newline)
;; second derivative at 0.5 against the closed form's finite difference
(define (d x) (car (cdr (graph-grad (lambda (y) (tensor-gelu y)) x))))
(write (graph-grad d 0.5)) (newline)
(write (/ (- (d (+ 0.5 1e-6)) (d (- 0.5 1e-6))) 2e-6)) (newline)
(write (graph-ir tensor-gelu (tensor '(1.0 2.0)))) (newline)
(tensor-gelu "x")

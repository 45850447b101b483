;; Outside findings, third round (issue 35), on every path: eager, graph-eval,
;; graph-grad and compiled kernels.
;; relu is x < 0 ? 0 : x, PyTorch's clamp_min: -0.0 and NaN pass through.
(define x (tensor '(-0.0 0.0 +nan.0 -2.0 3.0)))
(write (tensor->list (relu x))) (newline)
(write (relu -0.0)) (newline)
(write (tensor->list (graph-eval (lambda (x) (relu x)) x))) (newline)
(define krelu (graph-compile (lambda (x) (relu x)) x))
(write (tensor->list (krelu x))) (newline)
;; d(a/b)/db is -g*((a/b)/b) as in PyTorch: finite where b*b underflows.
;; PyTorch float64 gives db = [-0.0 -1e+40 -inf] here (-1.0000000000000002e+40 unrounded).
(define (div-loss a b) (tensor-sum (tensor-div a b)))
(define A (tensor '(0.0 1e-300 1.0 3.0)))
(define B (tensor '(-1e-310 1e-170 1e-160 -2.0)))
(define g (graph-grad div-loss A B))
(write g) (newline)
(define kdiv (graph-compile-grad div-loss A B))
(write (equal? g (kdiv A B))) (newline)
;; a broadcast divisor: its gradient is summed back to its shape
(write (graph-grad div-loss (tensor '((1e-150 2.0) (3e-150 4.0))) (tensor '(1e-160 -2.0)))) (newline)

;; tensor-softplus (docs/adding-an-op.md mentions it beside tensor-silu): PyTorch's
;; softplus (log(1+e^x), x itself above 20), eager, traced and compiled bit for bit,
;; with gradient sigmoid(x) (1 above 20).
(define xs (tensor '(-800.0 -30.0 -1.5 -0.0 0.0 0.5 19.5 20.0 20.5 800.0 +inf.0 -inf.0 +nan.0)))
(write (tensor->list (tensor-softplus xs))) (newline)
(write (tensor-softplus 1.0)) (newline)
(write (equal? (tensor-softplus xs) (graph-eval tensor-softplus xs))) (newline)
(define (loss x) (tensor-sum (tensor-softplus x)))
(define g (graph-grad loss xs))
(write (car g)) (newline)
(write (tensor->list (cadr g))) (newline)
(write (equal? g ((graph-compile-grad loss xs) xs))) (newline)
(write (graph-ir tensor-softplus (tensor '(1.0 2.0)))) (newline)
(tensor-softplus "x")

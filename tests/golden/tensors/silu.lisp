;; tensor-silu: PyTorch's silu (SiLU, swish), x/(1+e^-x), added as docs/adding-an-op.md's
;; worked example: one row of runtime/op_table.h and one formula with its derivative in
;; runtime/elementwise_formulas.h. Everything below comes from the generic machinery:
;; eager (scalar and vector loops), fused, graph-eval, compiled and vmap agree bit for
;; bit; its gradient s (1 + x (1 - s)), s = sigmoid(x) (PyTorch's backward), is built
;; from ops with gradients, so second derivatives work.
(define-syntax check
  (syntax-rules ()
    ((_ expr) (guard (e (#t (display (error-object-message e)) (newline)))
                (write expr) (newline)))))
(define xs (tensor '(-800.0 -30.0 -1.5 -0.0 0.0 1e-300 0.5 1.0 20.0 800.0 +inf.0 -inf.0 +nan.0)))
(write (tensor->list (tensor-silu xs))) (newline)
(write (tensor-silu 1.0)) (newline)
(write (tensor-silu (tensor 2.0))) (newline)
;; 1001 points: the vector loop and its scalar tail, against the scalar formula
(define many (tensor-mul 8.0 (tensor-sub (tensor-rand '(1001) 5) 0.5)))
(write (equal? (tensor-silu many) (tensor-map (lambda (x) (tensor-silu x)) many))) (newline)
(write (equal? (tensor-silu many) (graph-eval tensor-silu many))) (newline)
(write (equal? (tensor-silu many) ((jit tensor-silu) many))) (newline)
;; nested calls run as one fused pass, same bits as one op at a time
(define (nest x) (tensor-silu (tensor-mul 2.0 (tensor-silu x))))
(write (equal? (nest many) (let ((t (tensor-silu many))) (tensor-silu (tensor-mul 2.0 t))))) (newline)
(write (equal? (nest many) ((jit nest) many))) (newline)
;; vmap: the batched op is the op itself, bit for bit map over the slices
(define m (reshape (tensor-slice many 0 0 1000) '(10 100)))
(write (equal? ((vmap tensor-silu) m) (tensor-silu m))) (newline)
(write (equal? ((vmap tensor-silu 1 1) m) (tensor-silu m))) (newline)
;; the gradient: PyTorch's formula, eager = graph-grad = compiled
(define (loss x) (tensor-sum (tensor-silu x)))
(define g (graph-grad loss xs))
(write (car g)) (newline)
(write (tensor->list (cadr g))) (newline)
(define s (tensor-sigmoid many))
(write (equal? (cadr (graph-grad loss many)) (tensor-mul s (tensor-add 1.0 (tensor-mul many (tensor-sub 1.0 s))))))
(newline)
(write (equal? (graph-grad loss many) ((graph-compile-grad loss many) many))) (newline)
;; per-example gradients: vmap of grad, against the whole batch's gradient
(define (row-loss r) (tensor-sum (tensor-silu r)))
(write (equal? (cadr ((vmap (grad row-loss)) m)) (cadr (graph-grad loss m)))) (newline)
;; second derivative at 0.5 against the first derivative's central difference
(define (d x) (cadr (graph-grad (lambda (y) (tensor-silu y)) x)))
(write (graph-grad d 0.5)) (newline)
(write (/ (- (d (+ 0.5 1e-6)) (d (- 0.5 1e-6))) 2e-6)) (newline)
(write (graph-ir tensor-silu (tensor '(1.0 2.0)))) (newline)
(write (graph-ir 'grad loss (tensor '(1.0 2.0)))) (newline)
;; errors: not a tensor, arity, eagerly and traced alike
(check (tensor-silu "x"))
(check (tensor-silu))
(check (tensor-silu xs xs))
(check (graph-eval (lambda (t) (tensor-silu t t)) xs))
(check (graph-eval (lambda (t) (tensor-silu "x")) xs))

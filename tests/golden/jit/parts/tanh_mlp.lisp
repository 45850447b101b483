;; The 8-wide tanh MLP whose jitted SGD step jit/deep_mlp.lisp, jit/tiering.lisp and
;; tests/jit/tiering_step.lisp run, and tests/jit/exit_mid_compile.lisp compiles
;; (included; no .out file, so the runner does not run it alone). (layer SEED): (W b), W randn scaled by 1/sqrt(8), b randn x 0.1
;; (seed SEED + 100); a mean-square loss; (step ps x y): one SGD step at rate 0.05,
;; (ps' loss).
(define width 8)
(define (layer seed)
  (list (tensor-mul (tensor-randn (list width width) seed) (/ 1.0 (sqrt width)))
        (tensor-mul (tensor-randn (list 1 width) (+ seed 100)) 0.1)))
(define (forward ps h)
  (if (null? ps) h (forward (cdr ps) (tensor-tanh (+ (matmul h (caar ps)) (cadar ps))))))
(define (loss ps x y) (let ((d (- (forward ps x) y))) (tensor-mean (* d d))))
(define (step ps x y)
  (let ((r ((grad loss 0) ps x y)))
    (list (tree-map (lambda (p dp) (- p (* 0.05 dp))) ps (cadr r)) (car r))))

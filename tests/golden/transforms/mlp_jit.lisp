;; examples/mlp_jit.lisp, short: its printed losses and accuracy after 60 steps, and
;; the jitted training step against the eager one, bit for bit.
(define mlp-steps 60)
(load "../../../examples/mlp_jit.lisp")
(display (equal? (jstep initial-params X Y) (train-step initial-params X Y))) (newline)
(display (equal? (jstep initial-params X Y) (graph-eval train-step initial-params X Y))) (newline)
(display (length (jit-kernels jstep))) (newline)

;; examples/rnn.lisp, short: its printed losses after 2 epochs of 50 SGD steps, and
;; one epoch jitted against the same epoch computed eagerly, bit for bit.
(define rnn-epochs 2)
(load "../../../examples/rnn.lisp")
(define eager-epoch
  (fori-loop steps-per-epoch (lambda (i p) (sgd p (cadr ((grad loss 0) p xs targets)))) initial-params))
(display (equal? eager-epoch (epoch initial-params xs targets))) (newline)
(display (< (loss final xs targets) (* 0.5 (loss initial-params xs targets)))) (newline)

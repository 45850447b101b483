;; The training example's printed losses and accuracy, pinned.
(load "../../../examples/spiral_mlp.lisp")

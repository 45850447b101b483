;; More than one datum after a dot.
(display '(1 . 2 3))

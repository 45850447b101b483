;; A reference to a label that was never defined is a read error in a file too.
(display "before")
(newline)
(write '(a #3# b))

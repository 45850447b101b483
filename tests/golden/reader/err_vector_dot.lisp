;; A dotted tail is not allowed in a vector.
(display "ok")
(newline)
(display '#(1 . 2))

;; A stray closing bracket.
(display "ok")
(newline)
(+ 1 2))

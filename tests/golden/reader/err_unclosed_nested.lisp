;; Three lists open at the end: the count, and the outermost opener.
(display "x")
(newline)
  (a (b [c

;; Output written before an error appears before the error in merged output.
(display "line one")
(newline)
(display "partial line without newline ")
(write-string "more")
(newline)
(car 5)

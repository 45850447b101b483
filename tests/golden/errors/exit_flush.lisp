;; exit ends the script at once; output written before it is flushed.
(display "before exit")
(newline)
(display "no newline at the end")
(exit 3)
(display "never printed")

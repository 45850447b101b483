;; Characters: write uses #\ names, display the raw character.
(write (list #\a #\A #\space #\newline #\tab #\nul #\return #\( #\\ #\" #\x41 #\;)) (newline)
(write (map integer->char '(7 8 27 127 1 31))) (newline)
(display (list #\a #\space #\b)) (newline)
(display #\x) (newline)
(write #\x) (newline)

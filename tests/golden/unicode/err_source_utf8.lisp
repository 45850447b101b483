;; A source file that is not valid UTF-8 (a Latin-1 byte in a string): a read
;; error naming the line and the column, which counts characters.
(display "before: λ中")
(newline)
(display "caf�")
(display "never reached")

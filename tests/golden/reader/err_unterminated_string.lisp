;; A string that never ends is a read error at its opening quote.
(display "before")
(newline)
(display "never closed)
(newline)

;; An exact ratio with a zero denominator is a read error; #i makes it a float.
(display #i1/0)
(newline)
(display '(a 1/0))

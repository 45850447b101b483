;; An unknown escape inside |...| is a read error at its backslash.
(write '|ok\x41;|)
(newline)
(write '|bad\qescape|)

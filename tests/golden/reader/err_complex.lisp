;; Integer literals of any size read; complex syntax is a read error (Kiln has
;; no complex numbers), not a symbol.
(display 9223372036854775808)
(newline)
(display -123456789012345678901234567890)
(newline)
(display '(1 3+4i))

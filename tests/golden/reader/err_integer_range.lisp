;; An integer literal that does not fit 64 bits is a read error.
(display 9223372036854775807)
(newline)
(display 9223372036854775808)

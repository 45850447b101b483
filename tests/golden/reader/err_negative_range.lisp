;; The lower bound: one below the smallest 64-bit integer.
(display -9223372036854775808)
(newline)
(display -9223372036854775809)

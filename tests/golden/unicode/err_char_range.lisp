;; A character literal beyond #x10FFFF.
(write #\x10FFFF)
(newline)
(write #\x110000)

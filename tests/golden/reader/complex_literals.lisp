;; Integer literals of any size read, and complex syntax reads as complex
;; numbers (not symbols); an exact n/0 is a read error.
(display 9223372036854775808)
(newline)
(display -123456789012345678901234567890)
(newline)
(write '(1 3+4i -i 1.5e3+0.5i |+i|))
(newline)
(write (map symbol? '(+i 1+2i 1+2j)))
(newline)
(display '(1 1/0+i))


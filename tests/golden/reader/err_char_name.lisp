;; An unknown character name.
(display #\a)
(newline)
(display #\bogus)

;; An unknown escape in a string.
(display "ok")
(newline)
(display "bad \q escape")

;; A surrogate encoded in UTF-8 (as CESU-8 writes them) is not valid UTF-8.
(define 位位 1)
(display 位位)
(newline)
(define 位頎� 2)

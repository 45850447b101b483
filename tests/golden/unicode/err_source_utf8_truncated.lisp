;; A file that ends inside a multi-byte character.
(display "ok")
(newline)
'ä¸
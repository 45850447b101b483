;; A ( closed by ] (and the other way) is a read error naming the opener.
(display "ok")
(newline)
(list 1 2]

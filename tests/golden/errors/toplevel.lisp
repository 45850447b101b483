;; An error in a top-level form outside any procedure call: no `at` lines.
(define v (vector 1 2 3))
(display "ok")
(newline)
   (vector-ref v 9)

;; At most 10 `at` lines, however deep the recursion.
(define (down n)
  (if (= n 0)
      (vector-ref (vector 1 2 3) 9)
      (+ 1 (down (- n 1)))))
(down 25)

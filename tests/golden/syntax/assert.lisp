;; assert: returns when the expression is true, raises naming it when false.
(assert (= 1 1))
(assert #t)
(assert '())                              ; only #f is false
(display "asserts passed") (newline)
(guard (e (#t (display (error-object-message e)) (newline)))
  (assert (= 1 2)))
(define (checked-sqrt x)
  (assert (>= x 0))
  (sqrt x))
(write (checked-sqrt 16)) (newline)
(guard (e (#t (display (error-object-message e)) (newline)))
  (checked-sqrt -4))

;; Floats print the shortest text that reads back, always marked as a float (docs/language.md).
(for-each (lambda (x) (write x) (newline))
          (list 1.0 0.1 0.30000000000000004 (+ 0.1 0.2) 1e21 1e+21 1e-7 -0.0 +inf.0 -inf.0 +nan.0
                123456789.123 100.0 -2.5 1e20 1e22 123456.0 0.001 1.5e-10 (/ 1.0 3)
                (exact->inexact 7) (sqrt 2.0) 1.7976931348623157e308 5e-324 (- (/ 0.0 0.0))))
;; display and write agree on numbers.
(display (list 1.0 -0.0 1e21 +nan.0)) (newline)
(display 42) (newline)
(display -9223372036854775808) (newline)
;; number->string uses the same rule.
(write (map number->string (list 1.0 0.1 1e21 -inf.0))) (newline)

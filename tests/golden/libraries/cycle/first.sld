;; Half of a cycle: (cycle first) imports (cycle second), which imports it back.
(define-library (cycle first)
  (export one)
  (import (scheme base) (cycle second))
  (begin (define one 1)))

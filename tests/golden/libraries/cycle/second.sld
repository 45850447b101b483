;; The other half of the cycle of errors.lisp.
(define-library (cycle second)
  (export two)
  (import (scheme base) (cycle first))
  (begin (define two 2)))

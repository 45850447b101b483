;; Its body raises an error, so the import fails and the library is not defined.
(define-library (broken failing)
  (export y)
  (import (scheme base))
  (begin
    (define y 1)
    (error "failing body")))

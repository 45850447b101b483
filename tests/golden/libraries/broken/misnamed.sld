;; Found as broken/misnamed.sld but defines another library: importing
;; (broken misnamed) is an error.
(define-library (broken other-name)
  (export x)
  (import (scheme base))
  (begin (define x 1)))

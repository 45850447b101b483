(define-library (callcc reenter)
  (export jumped)
  (import (scheme base) (callcc hook))
  (begin (define jumped (call-hook 'reentered-from-body))))

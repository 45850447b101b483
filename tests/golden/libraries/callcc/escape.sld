(define-library (callcc escape)
  (export jumped)
  (import (scheme base) (callcc hook))
  (begin (define jumped (call-hook 'escaped-from-body))))

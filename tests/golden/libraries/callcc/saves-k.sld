;; Captures a continuation in its body and exports it.
(define-library (callcc saves-k)
  (export saved-k runs)
  (import (scheme base))
  (begin
    (define runs 0)
    (define saved-k #f)
    (call/cc (lambda (k) (set! saved-k k)))
    (set! runs (+ runs 1))))

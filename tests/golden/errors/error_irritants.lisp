;; error with irritants: the message, then each irritant in write form.
(define (check x)
  (if (> x 10) (error "bad thing:" x 'foo "a string" #\c '(1 "two")) x))
(display (check 5))
(newline)
(check 42)

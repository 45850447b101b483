;; An uncaught list error ends the script with the location of the call.
(define (second-of x) (car (cdr x)))
(display "before")
(newline)
(second-of '(1))
(display "not reached")

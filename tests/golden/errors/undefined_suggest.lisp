;; An undefined variable close to a bound name gets a suggestion.
(define (lenght-of lst) (length lst))
(define my-counter 0)
(display (lenght-of '(1 2)))
(newline)
(set! my-countr 5)

(define included-a 1)
(define (included-f) (+ included-a 1))

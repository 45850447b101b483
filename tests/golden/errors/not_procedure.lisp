;; Calling something that is not a procedure.
(define (caller x) (x 1 2))
(caller 42)

;; Raising a value that is not an error object, uncaught.
(define (thrower) (raise (list 'my-condition 42)))
(thrower)

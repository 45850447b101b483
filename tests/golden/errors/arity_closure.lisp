;; Calling a closure with the wrong number of arguments.
(define (f a b) (+ a b))
(define (caller) (f 1))
(caller)

;; Calling a builtin with the wrong number of arguments.
(define (caller) (cons 1))
(caller)

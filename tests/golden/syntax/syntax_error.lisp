;; (syntax-error MESSAGE FORM...) raises its error when the macro use is
;; expanded, before any of the program around it runs.
(define-syntax two-args
  (syntax-rules ()
    ((_ a b) (list a b))
    ((_ . other) (syntax-error "two-args: expected two arguments, got" other))))
(write (two-args 1 2))
(newline)
(define (report e)
  (display (error-object-message e))
  (display " | ")
  (write (error-object-irritants e))
  (newline))
(guard (e ((error-object? e) (report e)))
  (eval '(lambda () (display "never printed") (two-args 1 2 3)) (interaction-environment)))
(guard (e ((error-object? e) (report e)))
  (eval '(syntax-error 42) (interaction-environment)))
;; Uncaught, it is reported at the use.
(define (f) (two-args 1))

;; with-exception-handler, raise, raise-continuable.
(write (with-exception-handler
         (lambda (e) 10)
         (lambda () (+ 1 (raise-continuable 'oops)))))
(newline)
(write (with-exception-handler
         (lambda (e) (* e 2))
         (lambda () (+ (raise-continuable 5) (raise-continuable 6)))))
(newline)
;; The handler runs in the dynamic context of raise: output order shows it runs
;; before the guard's clause.
(write (guard (e (#t (display "guard ") (list 'caught e)))
         (with-exception-handler
           (lambda (e) (display "handler ") 'ignored)
           (lambda () (raise 'boom)))))
(newline)
;; A handler returning from a non-continuable raise is itself an error.
(guard (e (#t (display (error-object-message e)) (newline)))
  (with-exception-handler (lambda (e) 'returned) (lambda () (raise 'x))))
;; Escaping from the handler with a continuation.
(write (call/cc
         (lambda (k)
           (with-exception-handler
             (lambda (e) (k (list 'handled e)))
             (lambda () (raise 'boom))))))
(newline)
;; Inside the handler, the outer handler is current.
(write (guard (e (#t (list 'outer e)))
         (with-exception-handler
           (lambda (e) (raise (list 'wrapped e)))
           (lambda () (raise 'inner)))))
(newline)
(write (with-exception-handler
         (lambda (e) 'outer-handler)
         (lambda ()
           (with-exception-handler
             (lambda (e) (list 'inner-saw e (raise-continuable 'again)))
             (lambda () (raise-continuable 'first))))))
(newline)
;; Builtin errors reach handlers too; raise-continuable with no handler is uncaught.
(write (call/cc
         (lambda (k)
           (with-exception-handler
             (lambda (e) (k (error-object-message e)))
             (lambda () (vector-ref (vector 1) 5))))))
(newline)
(write (with-exception-handler (lambda (e) 0) (lambda () 'no-raise))) (newline)
(guard (e (#t (display (error-object-message e)) (newline)))
  (with-exception-handler 5 (lambda () 1)))

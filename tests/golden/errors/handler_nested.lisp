;; R7RS: when a handler returns from a non-continuable raise, a secondary
;; exception is raised in the handler's dynamic environment, so the handler
;; outside it sees that secondary exception.
(write (call/cc
         (lambda (k)
           (with-exception-handler
             (lambda (e) (k (list 'outer (error-object-message e) (error-object-irritants e))))
             (lambda ()
               (with-exception-handler
                 (lambda (e) 'inner-returned)
                 (lambda () (raise 'boom))))))))
(newline)
;; a guard outside catches it the same way
(write (guard (e ((error-object? e) (list 'guard (error-object-irritants e))))
         (with-exception-handler
           (lambda (e) 'returned)
           (lambda () (raise 42)))))
(newline)
;; three levels: each returning handler passes a new error outwards
(write (call/cc
         (lambda (k)
           (with-exception-handler
             (lambda (e) (k (list 'outermost (error-object? e))))
             (lambda ()
               (with-exception-handler
                 (lambda (e) (display "middle ") 'middle-returned)
                 (lambda ()
                   (with-exception-handler
                     (lambda (e) (display "inner ") 'inner-returned)
                     (lambda () (raise 'deep))))))))))
(newline)
;; errors raised by builtins are non-continuable too
(write (call/cc
         (lambda (k)
           (with-exception-handler
             (lambda (e) (k (error-object-message e)))
             (lambda ()
               (with-exception-handler
                 (lambda (e) 'ignored)
                 (lambda () (car 5))))))))
(newline)
;; uncaught: reported like any error
(with-exception-handler (lambda (e) 'returned) (lambda () (raise 'last)))

;; Continuations captured where the C++ stack cannot be resumed (inside a
;; builtin that calls back into Lisp) still escape, but re-entering one after
;; its extent has ended is a clear error.
(define (try-reenter k)
  (guard (e ((error-object? e) (display (error-object-message e)) (newline)))
    (k 'again)))

(define saved #f)
;; (map, sort, hash-table-walk and the other higher-order builtins can be
;; re-entered: reenter_builtins.lisp.) A string port being written:
(call-with-output-string (lambda (port) (call/cc (lambda (c) (set! saved c)))))
(try-reenter saved)

;; In the handler of an error raised by a builtin.
(guard (e (#t 'ignored))
  (with-exception-handler
    (lambda (e) (call/cc (lambda (c) (set! saved c))) (raise 'give-up))
    (lambda () (vector-ref (vector) 0))))
(try-reenter saved)

;; In a guard clause.
(guard (e (#t (call/cc (lambda (c) (set! saved c)))))
  (raise 'oops))
(try-reenter saved)

;; An escape continuation never copies the stack, so it is never re-entered.
(call-with-escape-continuation (lambda (c) (set! saved c)))
(try-reenter saved)

;; Escaping from inside those builtins still works.
(write (call/cc (lambda (k) (vector-map (lambda (x) (if (= x 2) (k 'escaped) x)) #(1 2 3)))))
(newline)
(write (call/ec (lambda (k) (+ 1 (k 'escaped-ec)))))
(newline)

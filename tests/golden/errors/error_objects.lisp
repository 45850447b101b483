;; error-object? error-object-message error-object-irritants, and what guard receives.
(define e1 (guard (e (#t e)) (error "bad thing:" 42 'foo)))
(write (error-object? e1)) (newline)
(write (error-object-message e1)) (newline)
(write (error-object-irritants e1)) (newline)
(write e1) (newline)
(define e2 (guard (e (#t e)) (car 5)))
(write (list (error-object? e2) (error-object-message e2) (error-object-irritants e2))) (newline)
(define e3 (guard (e (#t e)) (raise 'just-a-symbol)))
(write (list (error-object? e3) e3)) (newline)
(write (map error-object? (list 1 "s" 'x '() (vector)))) (newline)
(write (guard (e (#t (error-object-message e))) (error-object-message 5))) (newline)
;; Builtin errors are error objects with an empty irritant list.
(write (guard (e ((error-object? e) (error-object-irritants e))) (vector-ref (vector) 0))) (newline)
;; file-error? and read-error?
(write (guard (e (#t (file-error? e))) (open-input-file "no/such/file.txt"))) (newline)
(write (guard (e (#t (read-error? e))) (read (open-input-string "(1 2")))) (newline)
(write (guard (e (#t (read-error? e))) (car 5))) (newline)
;; The raised object is passed through unchanged (eq?).
(define obj (list 'payload))
(write (eq? obj (guard (e (#t e)) (raise obj)))) (newline)

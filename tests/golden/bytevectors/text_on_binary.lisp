;; Procedures that read characters refuse a binary port with the usual
;; argument error, naming themselves and the argument.
(define (try thunk)
  (guard (e ((error-object? e) (display (error-object-message e)) (newline)))
    (write (thunk))
    (newline)))
(define bp (open-input-bytevector (bytevector 65 66 10)))
(try (lambda () (read-char bp)))
(try (lambda () (peek-char bp)))
(try (lambda () (read-line bp)))
(try (lambda () (read-string 2 bp)))
(try (lambda () (read bp)))
(try (lambda () (char-ready? bp)))
(try (lambda () (parameterize ((current-input-port bp)) (read-char))))
;; The port is untouched: its bytes are still there.
(try (lambda () (read-bytevector 5 bp)))

;; Text read from a file port must be UTF-8: invalid bytes are an error naming
;; the port, the line and the column (in characters) where they are.
(define path "unicode-port-errors-test.txt")
(define (write-bytes . bytes)
  (call-with-port (open-binary-output-file path)
                  (lambda (port) (write-bytevector (apply bytevector bytes) port))))
(define (try proc)
  (guard (e (#t (display (error-object-message e)) (newline)))
    (write (call-with-input-file path proc)) (newline)))
;; "aλ\n" then a lone continuation byte
(write-bytes 97 #xCE #xBB 10 #x80 98)
(try (lambda (port) (list (read-char port) (read-char port) (read-char port) (read-char port))))
(try read-line)
(try (lambda (port) (read-line port) (read-line port)))
(try (lambda (port) (read-string 10 port)))
;; peek-char sees the error too, at the place of the character it looks at
(write-bytes #xCE #xBB #xFF)
(try (lambda (port) (list (read-char port) (peek-char port))))
;; a sequence cut short by a newline, an overlong form, a surrogate, past U+10FFFF
(write-bytes 120 #xE4 #xB8 10)
(try read-line)
(write-bytes #xC0 #xAF)
(try read-char)
(write-bytes #xED #xA0 #x80)
(try read-char)
(write-bytes #xF4 #x90 #x80 #x80)
(try read-char)
;; `read` of a datum
(write-bytes 40 #xCE #xBB 32 #xFE 41)
(try read)
;; the same bytes through a binary port are just bytes
(write (call-with-port (open-binary-input-file path) (lambda (port) (read-bytevector 10 port))))
(newline)
;; utf8->string checks its bytes too
(guard (e (#t (display (error-object-message e)) (newline)))
  (utf8->string (bytevector 97 #xCE #xBB #xCE)))
(guard (e (#t (display (error-object-message e)) (newline)))
  (utf8->string (bytevector 97 #xFF 98)))
;; a binary port does not read characters
(guard (e (#t (display (error-object-message e)) (newline)))
  (read-char (open-input-bytevector (bytevector 97))))
(delete-file path)

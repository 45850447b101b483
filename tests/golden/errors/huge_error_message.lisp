;; `error` with a message that is not a string prints it capped, as every value in
;; an error text: this one has 2^60 leaves through shared structure.
(define dag (let loop ((k 60) (x '(leaf))) (if (= k 0) x (loop (- k 1) (list x x)))))
(guard (e (#t (display (string-length (error-object-message e))) (newline)
              (display (substring (error-object-message e) 0 40)) (newline)))
  (error dag))
(guard (e (#t (write (error-object-message e)) (newline)))
  (error 'my-proc "went wrong" 42))

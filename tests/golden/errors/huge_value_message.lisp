;; A value quoted in an error message is cut at 1000 characters, and cutting it
;; takes time for those characters only: this list prints as 2^60 leaves.
(define dag (let loop ((k 60) (x '(leaf))) (if (= k 0) x (loop (- k 1) (list x x)))))
(define (message-length thunk)
  (guard (e (#t (display (string-length (error-object-message e))) (newline)))
    (thunk)))
(message-length (lambda () (car dag dag)))
(message-length (lambda () (vector-ref dag 0)))
(message-length (lambda () (dag)))
(define big (make-list 100000 1))
(message-length (lambda () (big)))
(message-length (lambda () (hash-table-ref (make-hash-table) dag)))
(error "irritant:" dag)

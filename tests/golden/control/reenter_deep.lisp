;; Moved out of reenter_many: the ASan build's stack cannot hold 100 000
;; frames (Makefile, ASAN_GOLDEN_SKIP), and the rest of that file should run there.
;; Deep recursion and stack overflow behave as without continuations.
(define (count-down n) (if (= n 0) 0 (+ 1 (count-down (- n 1)))))
(write (count-down 100000)) (newline)
(define (forever n) (+ 1 (forever n)))
(guard (e (#t (display (error-object-message e)) (newline))) (forever 1))

;; Runaway recursion raises a catchable `stack overflow` error, never a crash (docs/language.md).
(define (runaway n) (+ 1 (runaway (+ n 1))))
(guard (e (#t (display (error-object-message e)) (newline)))
  (runaway 0))
;; The interpreter is usable afterwards, and it happens again the same way.
(define (runaway2 l) (cons 1 (runaway2 (cons 1 l))))
(guard (e ((error-object? e) (display (error-object-message e)) (newline)))
  (runaway2 '()))
(write (+ 1 2)) (newline)
;; Deep recursion still works after an overflow was caught.
(define (count-up n) (if (= n 0) 0 (+ 1 (count-up (- n 1)))))
(write (count-up 100000)) (newline)
;; Runaway recursion through a macro-free mutual pair, caught by try-catch.
(define (ping n) (+ 1 (pong n)))
(define (pong n) (+ 1 (ping n)))
(write (try-catch (ping 0) (e) (error-object-message e))) (newline)

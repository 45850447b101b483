;; Non-tail recursion a million deep works with the default stack (a quarter of
;; memory, reserved, not committed: docs/language.md), in each shape a program meets.
(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))
(write (count 1000000)) (newline)
;; Building a list of a million without an accumulator, and a map written the same way.
(define (build n) (if (= n 0) '() (cons n (build (- n 1)))))
(define l (build 1000000))
(write (list (length l) (car l) (list-ref l 999999))) (newline)
(define (my-map f l) (if (null? l) '() (cons (f (car l)) (my-map f (cdr l)))))
(define doubled (my-map (lambda (x) (* 2 x)) l))
(write (list (length doubled) (car doubled) (apply + doubled))) (newline)
;; Mutual recursion: ping and pong call each other a million times in all.
(define (ping n) (if (= n 0) 0 (+ 1 (pong (- n 1)))))
(define (pong n) (if (= n 0) 0 (+ 2 (ping (- n 1)))))
(write (ping 1000000)) (newline)
;; Deep recursion inside the procedure map calls, through let and cond too.
(define (depth n) (cond ((= n 0) 0) (else (let ((d (depth (- n 1)))) (+ d 1)))))
(write (map (lambda (n) (depth n)) '(2 1000000))) (newline)
;; An error at the bottom of a million frames is caught where expected.
(define (fail-at-bottom n) (if (= n 0) (car '()) (+ 1 (fail-at-bottom (- n 1)))))
(write (guard (e ((error-object? e) (error-object-message e))) (fail-at-bottom 1000000))) (newline)

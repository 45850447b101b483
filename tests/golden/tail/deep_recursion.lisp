;; Deep non-tail recursion: 100 000 frames of (+ 1 (f (- n 1))) work (docs/language.md).
(define (count-up n) (if (= n 0) 0 (+ 1 (count-up (- n 1)))))
(write (count-up 100000)) (newline)
;; Building a long list recursively, and a recursive map over it.
(define (build n) (if (= n 0) '() (cons n (build (- n 1)))))
(define big (build 100000))
(write (length big)) (newline)
(define (my-map f l) (if (null? l) '() (cons (f (car l)) (my-map f (cdr l)))))
(write (apply + (my-map (lambda (x) 1) big))) (newline)
;; Non-tail recursion through let and cond.
(define (depth n) (cond ((= n 0) 0) (else (let ((d (depth (- n 1)))) (+ d 1)))))
(write (depth 100000)) (newline)
;; Builtin map over a 100 000-element list also works.
(write (length (map (lambda (x) (* x 2)) big))) (newline)

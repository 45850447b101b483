;; let let* letrec letrec* named let do.
(write (let ((x 2) (y 3)) (* x y))) (newline)
;; let inits are evaluated in the outer environment.
(write (let ((x 2) (y 3)) (let ((x 7) (z (+ x y))) (* z x)))) (newline)
;; let* sees earlier bindings.
(write (let ((x 2) (y 3)) (let* ((x 7) (z (+ x y))) (* z x)))) (newline)
(write (let* () 5)) (newline)
(write (let* ((x 1) (x (+ x 1)) (x (* x 10))) x)) (newline)
(write (let () 'empty-bindings)) (newline)
;; letrec: mutually recursive procedures.
(write (letrec ((even? (lambda (n) (if (zero? n) #t (odd? (- n 1)))))
                (odd? (lambda (n) (if (zero? n) #f (even? (- n 1))))))
         (even? 88)))
(newline)
(write (letrec ((fact (lambda (n) (if (= n 0) 1 (* n (fact (- n 1))))))) (fact 10))) (newline)
;; letrec*: inits run left to right and see earlier values.
(write (letrec* ((p (lambda (x) (+ 1 (q (- x 1)))))
                 (q (lambda (y) (if (zero? y) 0 (+ 1 (p (- y 1))))))
                 (x (p 5))
                 (y x))
         y))
(newline)
(write (letrec* ((a 1) (b (+ a 1)) (c (* b 3))) (list a b c))) (newline)
;; Named let.
(write (let loop ((i 0) (acc '()))
         (if (= i 5) (reverse acc) (loop (+ i 1) (cons (* i i) acc)))))
(newline)
(write (let loop () 'no-bindings)) (newline)
(write (let fib ((n 20)) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))) (newline)
;; The loop name is a procedure value and can escape.
(define escaped (let self ((n 0)) self))
(write (procedure? escaped)) (newline)
;; do: steps, result forms, variables without a step, a body for effect.
(write (do ((i 0 (+ i 1)) (acc '() (cons i acc))) ((= i 4) acc))) (newline)
(write (do ((vec (make-vector 5)) (i 0 (+ i 1))) ((= i 5) vec) (vector-set! vec i i))) (newline)
(write (let ((x '(1 3 5 7 9))) (do ((x x (cdr x)) (sum 0 (+ sum (car x)))) ((null? x) sum)))) (newline)
(do ((i 0 (+ i 1))) ((= i 3)) (display i)) (newline)
(display (do ((i 0 (+ i 1))) ((= i 3)))) (newline)   ; no result forms: unspecified
(write (do ((i 0 (+ i 1))) ((= i 3) 'a 'b 'done))) (newline)
;; Each iteration of do gets fresh bindings: closures see their own i.
(define procs (do ((i 0 (+ i 1)) (ps '() (cons (lambda () i) ps))) ((= i 3) (reverse ps))))
(write (map (lambda (p) (p)) procs)) (newline)
;; Bindings shadow globals and outer locals.
(define v 'global)
(write (list (let ((v 'inner)) v) v)) (newline)
(write (let ((car cdr)) (car '(1 2 3)))) (newline)

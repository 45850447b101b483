;; A Lisp loop whose test reads a traced value cannot be recorded: it fails at once
;; with SPEC §15's error, naming the loop's `if`, instead of overflowing the stack.
(define (try thunk)
  (guard (e (#t (display (error-object-message e)) (newline))) (thunk)))

;; Doubling until the sum passes 10: the test is a traced comparison.
(define (grow x)
  (let loop ((x x))
    (if (< (tensor-sum x) 10.0) (loop (tensor-mul x 2.0)) x)))
(try (lambda () (graph-eval grow (tensor '(1.0 2.0)))))
(try (lambda () ((jit grow) (tensor '(1.0 2.0)))))
;; Eagerly the same loop is an ordinary loop.
(display (grow (tensor '(1.0 2.0)))) (newline)
;; `do` and a test that is not a comparison are caught the same way.
(try (lambda () (graph-eval (lambda (x) (do ((y x (* y 2.0))) ((> y 100.0) y))) 1.0)))
(try (lambda () (graph-eval (lambda (x) (if x 1.0 2.0)) 1.0)))
;; An `if` on a traced comparison is still a select, nested or recursive over
;; a list of known length.
(define (clip-each xs t)
  (if (null? xs) '() (cons (if (> (car xs) t) t (car xs)) (clip-each (cdr xs) t))))
(display (graph-eval (lambda (a b t) (clip-each (list a b) t)) 1.0 5.0 3.0)) (newline)
(define (signs n x) (if (= n 0) x (if (< x 0.0) (signs (- n 1) (- x)) (signs (- n 1) x))))
(display (graph-eval (lambda (x) (signs 6 x)) -2.0)) (newline)
;; The whole report of an uncaught one: its place and the loop's frames.
(graph-eval grow (tensor '(1.0 2.0)))

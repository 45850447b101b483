;; delay force delay-force make-promise (R7RS scheme lazy).
(define count 0)
(define p (delay (begin (set! count (+ count 1)) (* 6 7))))
(write (promise? p)) (newline)
(write count) (newline)                 ; not forced yet
(write (force p)) (newline)
(write (force p)) (newline)
(write count) (newline)                 ; the body ran once
(write (force (make-promise 5))) (newline)
(write (promise? (make-promise 5))) (newline)
(write (let ((q (delay 1))) (eq? q (make-promise q)))) (newline)
(write (force 7)) (newline)             ; forcing a non-promise returns it
(write (promise? 7)) (newline)
;; A promise that forces itself while being forced (the R7RS example): the
;; first value computed wins.
(define n 0)
(define pr (delay (begin (set! n (+ n 1)) (if (> n x) n (force pr)))))
(define x 5)
(write (force pr)) (newline)
(set! x 10)
(write (force pr)) (newline)
;; delay-force: an iterative lazy loop in constant space.
(define (stream-loop n)
  (delay-force (if (= n 0) (delay 'done) (stream-loop (- n 1)))))
(write (force (stream-loop 1000000))) (newline)
;; Streams built from delay.
(define (ints-from n) (cons n (delay (ints-from (+ n 1)))))
(define (stream-take s k) (if (= k 0) '() (cons (car s) (stream-take (force (cdr s)) (- k 1)))))
(write (stream-take (ints-from 1) 5)) (newline)
;; delay of an expression whose value is a promise gives that promise back.
(write (promise? (force (delay (delay 1))))) (newline)
(write (force (force (delay (delay 1))))) (newline)
(write (force (delay-force (delay 'chained)))) (newline)

;; Closure-heavy: counters, adders, composition and higher-order folds.
(define (make-counter)
  (let ((n 0))
    (lambda () (set! n (+ n 1)) n)))

(define (make-adder k) (lambda (x) (+ x k)))

(define (compose f g) (lambda (x) (f (g x))))

(define (fold f acc lst)
  (if (null? lst) acc (fold f (f (car lst) acc) (cdr lst))))

(define (iota-list n)
  (let loop ((i (- n 1)) (acc '()))
    (if (< i 0) acc (loop (- i 1) (cons i acc)))))

(define (round-once numbers)
  ;; Build 100 adders, compose them into one procedure, apply it to every number.
  (let* ((adders (map make-adder (iota-list 100)))
         (all (fold compose (lambda (x) x) adders))
         (counter (make-counter)))
    (for-each (lambda (x) (counter)) numbers)
    (+ (counter) (fold (lambda (x acc) (+ acc (all x))) 0 numbers))))

(define numbers (iota-list 1000))
(define (repeat k total)
  (if (= k 0) total (repeat (- k 1) (+ total (round-once numbers)))))

(display (repeat 100 0))
(newline)

;; The same early exit taken 100 frames deep in a non-tail recursion: the
;; stack a capture copies is that much larger.
(define (find-first pred lst)
  (call/cc
   (lambda (return)
     (for-each (lambda (x) (if (pred x) (return x))) lst)
     #f)))

(define data '(1 3 5 7 9 11 12 13 15))
(define (at-depth d thunk) (if (= d 0) (thunk) (+ 0 (at-depth (- d 1) thunk))))
(define (run n acc)
  (if (= n 0)
      acc
      (run (- n 1) (+ acc (at-depth 100 (lambda () (find-first even? data)))))))
(display (run 100000 0))
(newline)

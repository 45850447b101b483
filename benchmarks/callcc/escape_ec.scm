;; call/ec as an early exit, a million times: the search returns through its
;; continuation as soon as it finds an element; the continuation never outlives
;; the call.
(define (find-first pred lst)
  (call/ec
   (lambda (return)
     (for-each (lambda (x) (if (pred x) (return x))) lst)
     #f)))

(define data '(1 3 5 7 9 11 12 13 15))
(define (run n acc)
  (if (= n 0)
      acc
      (run (- n 1) (+ acc (find-first even? data)))))
(display (run 1000000 0))
(newline)

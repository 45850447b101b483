;; Tail calls replace their frame: a loop of tail calls shows once, and the
;; caller that is waiting shows below it.
(define (loop n)
  (if (= n 0)
      (error "done looping:" n 'sym "str")
      (loop (- n 1))))
(define (go)
  (loop 5)
  'unreached)
(go)

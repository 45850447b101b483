;; Takeuchi function: deep non-tail calls, repeated.
(define (tak x y z)
  (if (not (< y x))
      z
      (tak (tak (- x 1) y z)
           (tak (- y 1) z x)
           (tak (- z 1) x y))))

(define (repeat n result)
  (if (= n 0)
      result
      (repeat (- n 1) (tak 18 12 6))))

(display (repeat 100 0))
(newline)

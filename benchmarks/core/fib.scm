;; Doubly recursive Fibonacci: procedure calls and integer arithmetic.
(define (fib n)
  (if (< n 2)
      n
      (+ (fib (- n 1)) (fib (- n 2)))))

(display (fib 30))
(newline)

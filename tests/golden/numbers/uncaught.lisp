; an uncaught exact division by zero ends the script with the docs/cli.md report
(define (fact n) (if (= n 0) 1 (* n (fact (- n 1)))))
(define (share total n) (/ total n))
(display (fact 21))
(newline)
(display (share (fact 21) 0))
(newline)
(display "not reached")

; an uncaught overflow ends the script with the docs/cli.md report on stderr
(define (fact n) (if (= n 0) 1 (* n (fact (- n 1)))))
(display (fact 20))
(newline)
(display (fact 21))
(newline)
(display "not reached")

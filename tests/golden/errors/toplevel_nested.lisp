;; The location is the innermost list being evaluated, even at top level.
(display (list 1
               (+ 2
                  (car '()))))

;; define-values binds each formal to the matching value, in order.
;; define-values at top level and in a body.
(define-values (q r) (floor/ 17 5))
(write (list q r)) (newline)
(define (local-values)
  (define-values (x y) (values 10 20))
  (- x y))
(write (local-values)) (newline)
(define-values all-of-them (values 1 2 3))
(write all-of-them) (newline)
(define-values (first second . others) (values 1 2 3 4))
(write (list first second others)) (newline)
;; let-values evaluates every init in the outer environment (unlike let*-values).
(let ((a 'outer))
  (let-values (((a) (values 1)) ((b) (values a)))
    (write (list a b)) (newline)))
(let ((a 'outer))
  (let*-values (((a) (values 1)) ((b) (values a)))
    (write (list a b)) (newline)))

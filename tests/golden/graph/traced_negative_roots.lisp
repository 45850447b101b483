;; A traced number is a real double: sqrt, log and expt of a negative number are NaN in
;; traced code and compiled kernels (as in a tensor), complex numbers eagerly (SPEC §4).
(define (f x) (list (sqrt x) (log x) (expt x 0.5)))
(write (f -1.5)) (newline)
(write (graph-eval f -1.5)) (newline)
(write ((jit f) -1.5)) (newline)
;; a complex number cannot enter a tensor; the traced NaN can
(write (try-catch (tensor-where (sqrt -1.5) 1.0 2.0) (e) (error-object-message e))) (newline)
(write (graph-eval (lambda (x) (tensor-where (sqrt x) 1.0 2.0)) -1.5)) (newline)
;; non-negative arguments agree bit for bit
(write (equal? (f 2.25) (graph-eval f 2.25))) (newline)

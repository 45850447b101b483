;; make-parameter and parameterize: converters, restoring on exit and on error.
(define p (make-parameter 10))
(write (p)) (newline)
(write (parameterize ((p 20)) (p))) (newline)
(write (p)) (newline)
(define q (make-parameter 5 (lambda (x) (* x 2))))
(write (q)) (newline)                        ; the converter runs on the initial value
(write (parameterize ((q 7)) (q))) (newline) ; and on each parameterized value
(write (q)) (newline)
;; Several parameters at once; nesting.
(write (parameterize ((p 1) (q 2)) (list (p) (q)))) (newline)
(write (parameterize ((p 1)) (parameterize ((p 2)) (p)))) (newline)
;; Dynamic, not lexical: a procedure called inside sees the new value.
(define (show) (p))
(write (parameterize ((p 'dynamic)) (show))) (newline)
;; The old value comes back after an error and after an escape.
(guard (e (#t (write (list 'after-error (p))) (newline)))
  (parameterize ((p 99)) (raise 'x)))
(write (call/cc (lambda (k) (parameterize ((p 'inside)) (k (p)))))) (newline)
(write (p)) (newline)
;; The body is a body: several forms.
(write (parameterize ((p 3)) (define d (* (p) 2)) (+ d 1))) (newline)
(guard (e (#t (display (error-object-message e)) (newline)))
  (parameterize ((car 1)) 'x))

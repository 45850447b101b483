;; An error inside let and when bodies of a procedure.
(define (f)
  (let ((x 1))
    (when (> x 0)
      (vector-ref (vector) x))))
(define (caller)
  (f)
  'unreached)
(caller)

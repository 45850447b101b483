;; R7RS: apply calls its procedure, and call-with-values its consumer, in tail
;; position, so these 1 000 000-deep loops run in constant space.
(define (count-down-apply n)
  (if (= n 0) 'apply-done (apply count-down-apply (list (- n 1)))))
(display (count-down-apply 1000000))
(newline)
(define (count-down-values n)
  (if (= n 0) 'values-done (call-with-values (lambda () (values (- n 1))) count-down-values)))
(display (count-down-values 1000000))
(newline)
;; Outside tail position they return values as usual.
(display (list (apply + 1 2 '(3 4)) (call-with-values (lambda () (values 1 2)) cons)))
(newline)
(display (map (lambda (x) (apply * x)) '((1 2) (3 4))))
(newline)

;; grad and grad-with-aux (docs/graph.md, "grad"): ((grad F) ARG...) is
;; (graph-grad F ARG...); ARGNUMS picks the arguments that get gradients.
(define (f a b c) (+ (* a b) (* b c) (* 2.0 c)))
(display ((grad f) 1.0 2.0 3.0)) (newline)
(display (equal? ((grad f) 1.0 2.0 3.0) (graph-grad f 1.0 2.0 3.0))) (newline)
(display ((grad f 1) 1.0 2.0 3.0)) (newline)
(display ((grad f '(2 0)) 1.0 2.0 3.0)) (newline)
(display (grad f)) (newline)
(display (procedure? (grad f))) (newline)
(display (map (grad (lambda (x) (* x x x))) '(1.0 2.0 3.0))) (newline)

;; only the chosen arguments get backward nodes: the data's gradient (a matmul
;; with the weights) is not in the graph when only the weights are asked for
(define w (tensor '((1.0 2.0) (3.0 4.0))))
(define x (tensor '((1.0 -1.0) (0.5 2.0))))
(define (loss w x) (tensor-sum (square (matmul x w))))
(display (equal? (cadr ((grad loss 0) w x)) (cadr (graph-grad loss w x)))) (newline)

;; grad-with-aux: F returns (LOSS . AUX); the result is (LOSS AUX G...)
(define (loss-aux w x)
  (let ((y (matmul x w)))
    (cons (tensor-sum (square y)) (list y (tensor-max y)))))
(define ra ((grad-with-aux loss-aux) w x))
(display (car ra)) (newline)
(display (cadr ra)) (newline)
(display (equal? (cddr ra) (cdr (graph-grad loss w x)))) (newline)
(display ((grad-with-aux (lambda (a b) (cons (* a b) (+ a b))) 1) 3.0 4.0)) (newline)

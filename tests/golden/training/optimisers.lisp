;; sgd, momentum and adam over a small tree (a list holding a tensor, a number and a
;; vector of a tensor), their states, optional arguments and tree-map.
(define params (list (tensor '(1.0 -2.0)) 0.5 (vector (tensor '((1.0 2.0) (3.0 4.0))))))
(define grads (list (tensor '(0.1 0.2)) -0.3 (vector (tensor '((0.5 -0.5) (1.0 0.0))))))
(define (show x) (write x) (newline))

(show (tree-map + '(1 #(2 3) ()) '(10 #(20 30) ())))
(show (tree-map (lambda (x) (* 2 x)) params))
(show (tree-map - 5))
(show (sgd-step params grads 0.1))

(show (momentum-init params))
(define m1 (momentum-step (momentum-init params) params grads 0.1))
(show m1)
;; the second step: buf = 0.9*g + g, p = p - 0.1*buf
(show (momentum-step (cdr m1) (car m1) grads 0.1))
(show (car (momentum-step (cdr m1) (car m1) grads 0.1 0.5)))

(show (adam-init params))
(define a1 (adam-step (adam-init params) params grads 0.01))
(show a1)
(show (adam-step (cdr a1) (car a1) grads 0.01))
(show (car (adam-step (cdr a1) (car a1) grads 0.01 0.8)))
(show (car (adam-step (cdr a1) (car a1) grads 0.01 0.8 0.99 1e-3)))
;; a number parameter alone is a tree too
(show (adam-step (adam-init 2.0) 2.0 0.5 0.1))

;; docs/graph.md: graph-ir, graph-node-count, graph-dot on the optimised graph.
(write (graph-ir (lambda (x) (+ 6 x)))) (newline)
(write (graph-node-count (lambda (x) (+ (* x x) (* x x))))) (newline)
(define x (ones '(2 3)))
(define w (ones '(3 2)))
(write (graph-node-count (lambda (x w) (tensor-add (matmul x w) (matmul x w))) x w)) (newline)
;; Constants fold; dead nodes go; unused params stay, in argument order.
(write (graph-ir (lambda (a b) (let ((unused (exp a))) (* (+ 1 2) a))))) (newline)
;; Helper procedures, let, a counted loop and a captured tensor.
(define bias (tensor '(0.5 -0.5)))
(define (layer v m) (relu (tensor-add (matmul v m) bias)))
(write (graph-ir (lambda (x w) (do ((i 0 (+ i 1)) (h x (layer h w))) ((= i 2) (tensor-sum h)))) (ones '(1 2)) (ones '(2 2))))
(newline)
;; An if on a comparison records a select; rank-1 matmul reshapes.
(write (graph-ir (lambda (x) (if (> x 1) (* x 2) (- x 1))))) (newline)
(write (graph-ir (lambda (u v) (matmul u v)) (ones '(3)) (ones '(3)))) (newline)
(write (graph-ir (lambda (a) (tensor-max (tensor-sum a 1 #t))) (ones '(2 3)))) (newline)
;; The forward+backward graph, numbered the same way.
(write (graph-ir 'grad (lambda (x w) (tensor-sum (relu (matmul x w)))) x w)) (newline)
(display (graph-dot (lambda (x) (+ 6 x))))
(display (graph-dot 'grad (lambda (x) (* x x))))

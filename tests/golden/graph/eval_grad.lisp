;; graph-eval equals eager evaluation; graph-grad follows docs/graph.md's rules.
(define x (tensor-randn '(4 3) 1))
(define w (tensor-randn '(3 2) 2))
(define t (tensor-randn '(4 2) 3))
(define (loss x w b t nn) (/ (tensor-sum (square (- (relu (+ (matmul x w) b)) t))) nn))
(display (equal? (graph-eval loss x w 0.1 t 8) (loss x w 0.1 t 8))) (newline)
(display (graph-eval (lambda (x) (+ 6 x)) 1)) (newline)
(write (graph-eval (lambda (v) (tensor-mul v 2)) (tensor '(1.0 2.0)))) (newline)
(define r (graph-grad loss x w 0.1 t 8))
(display (length r)) (newline)
(display (map (lambda (g) (if (tensor? g) (tensor-shape g) 'number)) (cdr r))) (newline)
(display (equal? (car r) (loss x w 0.1 t 8))) (newline)
;; Broadcasting sums the gradient back; a number gets a number.
(write (graph-grad (lambda (a b) (tensor-sum (tensor-mul a b))) (tensor '((1.0 2.0) (3.0 4.0))) (tensor '(10.0 20.0)))) (newline)
(write (graph-grad (lambda (a s) (tensor-sum (tensor-mul a s))) (tensor '((1.0 2.0) (3.0 4.0))) 3)) (newline)
;; relu'(0) = 0; a select passes the gradient to the chosen branch.
(write (graph-grad (lambda (v) (tensor-sum (relu v))) (tensor '(-1.0 0.0 2.0)))) (newline)
(write (graph-grad (lambda (v) (tensor-sum (if (< v 0) (tensor-mul v -3) (tensor-mul v v)))) (tensor '(-1.0 0.0 2.0)))) (newline)
;; max: the first maximal element, in row-major order, also per axis.
(write (graph-grad (lambda (v) (tensor-max v)) (tensor '((1.0 5.0) (5.0 2.0))))) (newline)
(write (graph-grad (lambda (v) (tensor-sum (tensor-max v 0))) (tensor '((1.0 5.0) (5.0 5.0))))) (newline)
;; Unused arguments get zeros; rank-0 tensors get rank-0 gradients.
(write (graph-grad (lambda (a b c) (* a a)) 3 (tensor 2.0) (ones '(2 2)))) (newline)
(write (graph-grad (lambda (s) (tensor-mul s s)) (tensor 4.0))) (newline)
;; A loop with a known trip count, differentiated through.
(write (graph-grad (lambda (x) (do ((i 0 (+ i 1)) (acc 1 (* acc x))) ((= i 3) acc))) 2.0)) (newline)

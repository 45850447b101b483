;; tensor-slice and concat inside traced functions: slice, pad (slice's gradient)
;; and concat nodes that only move data, so every path gives the same bits.
(define-syntax check
  (syntax-rules ()
    ((_ expr) (guard (e (#t (display (error-object-message e)) (newline)))
                (write expr) (newline)))))
(define x (tensor-randn '(3 4) 1))
(define w (tensor-randn '(4 5) 2))
(define (f x w)
  (let* ((h (matmul x w))
         (a (tensor-slice h 1 0 2))
         (b (tensor-slice h -1 2 5))
         (c (concat (list (tensor-mul a a) b (relu a)) 1)))
    (tensor-sum (tensor-mul c c))))
;; the nodes: two slices, and a three-way concat as a chain of two
(write (graph-ir f x w)) (newline)
;; graph-eval and graph-grad's loss equal the eager call; the compiled kernel equals graph-grad
(write (equal? (graph-eval f x w) (f x w))) (newline)
(define r (graph-grad f x w))
(write (equal? (car r) (f x w))) (newline)
(write (equal? ((graph-compile-grad f x w) x w) r)) (newline)
(write (equal? ((graph-compile f x w) x w) (f x w))) (newline)
;; gradients: a slice passes the gradient to its rows, zeros elsewhere (a pad);
;; a concat splits it back into its parts
(define m (tensor '((1 2) (3 4) (5 6))))
(write (graph-grad (lambda (v) (tensor-sum (tensor-mul (tensor-slice v 0 1 3) (tensor '((10 20) (30 40)))))) m)) (newline)
(write (graph-grad (lambda (v) (tensor-sum (concat (list v (tensor-slice v 0 1 3) v) 0))) m)) (newline)
(write (graph-grad (lambda (a b) (tensor-sum (tensor-mul (concat (list a b) 1) (tensor '((1 2 3) (4 5 6))))))
                   (tensor '((1) (1))) (tensor '((1 1) (1 1))))) (newline)
;; a whole-axis slice is no node; a one-tensor concat is that tensor
(write (graph-node-count (lambda (v) (tensor-sum (tensor-slice v 1 0 2))) m)) (newline)
(write (graph-node-count (lambda (v) (tensor-sum (concat (list v)))) m)) (newline)
;; constant tensors mixed with traced ones
(write (graph-eval (lambda (v) (concat (list (tensor '((0 0))) v) 0)) m)) (newline)
(write (graph-grad (lambda (v) (tensor-sum (concat (list v (ones '(3 1))) 1))) m)) (newline)
;; the same errors as the eager builtins, named after them
(check (graph-grad (lambda (v) (tensor-sum (tensor-slice v 0 2 5))) m))
(check (graph-grad (lambda (v) (tensor-sum (tensor-slice v 2 0 1))) m))
(check (graph-grad (lambda (v) (tensor-sum (tensor-slice v 0 'a 1))) m))
(check (graph-grad (lambda (s) (tensor-slice s 0 0 1)) 3))
(check (graph-grad (lambda (v) (tensor-sum (concat (list v (ones '(2 3))) 1))) m))
(check (graph-grad (lambda (v) (tensor-sum (concat (list v 1) 0))) m))
(check (graph-grad (lambda (s) (tensor-sum (concat (list s s)))) 2))
(check (graph-grad (lambda (v) (tensor-sum (concat (list v v) 5))) m))
(check (tensor-slice m 0 2 5))
(check (concat (list m (ones '(2 3))) 1))
;; odd lists and arguments: a circular list, an empty one, a traced axis, a number
(check (graph-grad (lambda (v) (let ((l (list v v))) (set-cdr! (cdr l) l) (tensor-sum (concat l)))) m))
(check (graph-grad (lambda (v) (tensor-sum (concat '() 0))) m))
(check (graph-grad (lambda (v) (tensor-sum (concat (list v v) v))) m))
(check (graph-grad (lambda (v) (tensor-sum (tensor-slice (tensor-sum v) 0 0 1))) m))
(check (graph-eval (lambda (v) (concat (list v (tensor 1.0)) 0)) m))

;; Named trees (SPEC §14): association lists with symbol keys, ((w . TREE) (b . TREE)).
;; Keys are structure, not leaves: graph-eval, graph-grad, grad, grad-with-aux, jit
;; and compiled kernels take them and give gradients and results with the same names.
(define x (tensor '((1.0 2.0) (-1.0 0.5) (0.0 3.0))))
(define params
  (list (cons 'layer1 (list (cons 'w (tensor '((0.5 -1.0) (2.0 0.25)))) (cons 'b (tensor '(0.1 -0.2)))))
        (cons 'out (list (cons 'w (tensor '((1.5) (-0.5))))))
        (cons 'scale 2.0)))
(define (mlp p x)
  (let ((l1 (tree-ref p 'layer1)))
    (* (tree-ref p 'scale)
       (matmul (tensor-tanh (+ (matmul x (tree-ref l1 'w)) (tree-ref l1 'b))) (tree-ref p 'out 'w)))))
(define (loss p x) (tensor-mean (square (mlp p x))))
(write params) (newline)
(write (tree-leaves params)) (newline)

;; the gradient has the parameters' names
(define g ((grad loss 0) params x))
(write (car g)) (newline)
(write (cadr g)) (newline)

(write (equal? (cdr g) (list (cadr (graph-grad loss params x)))))
(newline)
;; every path gives the same bits
(write (list (equal? (graph-eval mlp params x) (mlp params x))
             (equal? ((graph-compile mlp params x) params x) (mlp params x))
             (equal? ((jit mlp) params x) (mlp params x))
             (equal? ((jit (grad loss 0)) params x) g)
             (equal? ((graph-compile-grad loss params x) params x) (graph-grad loss params x))))
(newline)
;; a result may be named too, and AUX of grad-with-aux
(write ((jit (lambda (p) (list (cons 'double (* 2.0 (tree-ref p 'scale))) (cons 'pair (list 1.0 (tree-ref p 'scale))))))
        params))
(newline)
(write ((grad-with-aux (lambda (s) (cons (* s s) (list (cons 'cube (* s s s)))))) 3.0)) (newline)
;; a value entry (k . 2.0) and a list entry (k 1.0 2.0), which is (k . (1.0 2.0))
(write (graph-grad (lambda (p) (* (tree-ref p 'a) (tree-ref p 'v 1))) '((a . 2.0) (v 3.0 4.0)))) (newline)
;; keys are names, not positions: gradients of an alist nested in a vector and a list
(write (graph-grad (lambda (p) (* (tree-ref p 0 'x) (tree-ref p 1 0 'y)))
                   (vector '((x . 2.0)) (list '((y . 5.0)))))) (newline)
;; graph-ir numbers the leaves depth-first: the keys take no params
(write (cadr (graph-ir (lambda (p) (list (cons 'sum (+ (tree-ref p 'a) (tree-ref p 'b))))) '((a . 1.0) (b . 2.0)))))
(newline)

;; one jit kernel per structure: other keys are another signature, not a wrong answer
(define f (jit (lambda (p) (tree-map (lambda (l) (* 10.0 l)) p))))
(write (f '((a . 1.0) (b . 2.0)))) (newline)
(write (f '((c . 1.0) (d . 2.0)))) (newline)
(write (f '((a . 3.0) (b . 4.0)))) (newline)

;; save-model and load-model keep the names
(save-model "named-trees.kiln" params)
(write (equal? (load-model "named-trees.kiln") params)) (newline)
(write (tree-ref (load-model "named-trees.kiln") 'layer1 'b)) (newline)
(delete-file "named-trees.kiln")

;; errors: the structure rules, and a kernel checks names as structure
(define (show thunk) (display (guard (e (#t (condition/report-string e))) (thunk))) (newline))
(define (sum-leaves p) (tree-reduce + 0.0 p))
(show (lambda () (graph-eval sum-leaves '((a . 1.0) 2.0))))
(show (lambda () (graph-eval sum-leaves '(2.0 (a . 1.0)))))
(show (lambda () (graph-eval sum-leaves '((a . 1.0) (a . 2.0)))))
(show (lambda () (graph-eval sum-leaves '(a . 1.0))))
(show (lambda () (graph-eval sum-leaves (vector '(a . 1.0)))))
(show (lambda () (graph-grad sum-leaves '((a . 1.0) (b . "s")))))
(show (lambda () (graph-eval (lambda (p) (list (cons 'a p) 1.0)) 1.0)))
(show (lambda () ((grad sum-leaves) '((a . 1.0) ("b" . 2.0)))))
(define k (graph-compile sum-leaves '((a . 1.0) (b . 2.0))))
(write (k '((a . 5.0) (b . 6.0)))) (newline)
(show (lambda () (k '((a . 5.0) (c . 6.0)))))
(show (lambda () (k '((b . 5.0) (a . 6.0)))))
(show (lambda () (k '(5.0 6.0))))
(show (lambda () (k '((a . 5.0)))))
(define k2 (graph-compile sum-leaves '(1.0 (2.0 3.0))))
(show (lambda () (k2 '(1.0 (z 2.0 3.0)))))
(show (lambda () (k2 '(1.0 ((z . 2.0) 3.0)))))
(define k3 (graph-compile sum-leaves (vector '(1.0 2.0))))
(show (lambda () (k3 (vector '(z 2.0)))))

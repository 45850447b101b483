;; vmap against map over the slices, bit for bit (eqv? on every element, so
;; -0.0 and 0.0 differ), for every kind of op: element-wise, matmul, reductions,
;; data movement, indexing, selects; IN-AXES #f and other axes, OUT-AXES, trees,
;; nested vmap. `check` prints the batched result and whether it equals the slices.
(include "parts/against_slices.lisp")

(define x (tensor '((1.0 -2.0 3.0) (-4.0 5.0 -0.0))))
(define y (tensor '((0.5 0.25 2.0) (1.0 -1.0 0.0))))
(define v (tensor '(10.0 20.0 30.0)))
(define m (tensor-randn '(4 3 5) 7))
(define w (tensor-randn '(5 2) 8))
(define ws (tensor-randn '(4 5 2) 9))
;; element-wise, numbers and unmapped arguments broadcast
(check (lambda (a b) (+ (* a b) (exp (- a)) (relu a) (tensor-sqrt (tensor-abs b)))) '(0 0) 0 x y)
(check (lambda (a b) (* (- a b) 0.5)) '(0 #f) 0 x v)
(check (lambda (a) (tensor-sum (* a a))) '(0) 0 x)
(check (lambda (a) (+ (tensor-sum a) a)) '(0) 0 x)
(check (lambda (a) (tensor-neg a)) '(0) 0 (tensor '(0.0 -0.0 1.0)))
(check (lambda (a) (list (tensor-silu a) (tensor-softplus a) (tensor-gelu a))) '(0) 0 x)
;; other axes, negative axes, OUT-AXES
(check (lambda (a) (* 2.0 a)) '(1) 0 x)
(check (lambda (a) (* 2.0 a)) '(-1) 1 x)
(check (lambda (a b) (+ a b)) '(1 0) -1 x (tensor-randn '(3 2) 3))
;; reductions: whole, per axis, keepdims, mean, max (ties, -0.0)
(check (lambda (a) (list (tensor-mean a) (tensor-max a) (tensor-sum a 1) (tensor-mean a 0 #t) (tensor-max a -1)))
       '(0) 0 m)
(check (lambda (a) (tensor-max a)) '(0) 0 (tensor '((0.0 -0.0) (-0.0 0.0) (1.0 1.0))))
(check (lambda (a) (tensor-argmax a 1)) '(0) 0 m)
(check (lambda (a) (tensor-var a)) '(0) 0 m)
;; matmul: batched x unmapped weights, both batched, unmapped x batched weights, vectors
(check (lambda (a b) (matmul a b)) '(0 #f) 0 m w)
(check (lambda (a b) (matmul a b)) '(0 0) 0 m ws)
(check (lambda (a b) (matmul a b)) '(#f 0) 0 (tensor-slice m 0 0 1) ws)
(check (lambda (a b) (matmul a b)) '(0 #f) 0 (tensor-randn '(6 5) 4) w)
(check (lambda (a b) (matmul a b)) '(#f 0) 0 (tensor-randn '(5) 4) ws)
;; data movement
(check (lambda (a) (list (transpose a) (reshape a '(5 3)) (tensor-slice a 1 1 3)
                         (concat (list a (tensor-slice a 0 0 1)) 0)))
       '(0) 0 m)
(check (lambda (a b) (concat (list a b) 0)) '(0 #f) 0 x (tensor '(7.0 8.0)))
;; indexing: batched table, batched indices, both
(check (lambda (t i) (tensor-take t i)) '(0 #f) 0 m (tensor '(2 0 2)))
(check (lambda (t i) (tensor-take t i 1)) '(#f 0) 0 m (tensor '((1 1) (0 2) (2 0) (1 2))))
(check (lambda (t i) (tensor-take t i 1)) '(0 0) 0 m (tensor '((1 1) (0 4) (3 2) (4 4))))
(check (lambda (logits label) (cross-entropy (reshape logits '(1 5)) (reshape label '(1)))) '(0 0) 0
       (tensor-slice m 1 0 1) (tensor '(1 4 0 4)))
;; selects: if on a comparison, tensor-where, clip
(check (lambda (a b) (if (< (tensor-sum a) (tensor-sum b)) (* a 2.0) (- b))) '(0 0) 0 x y)
(check (lambda (a) (tensor-where (tensor-gt a 0.0) a (tensor-clip a -1.0 1.0))) '(0) 0 x)
;; trees: arguments and results
(check (lambda (p a) (list (* (car p) a) (vector (cadr p) (tensor-sum a))))
       '(0 0) 0 (list x y) x)
(check (lambda (p a) (+ (car p) (cadr p) a)) '(#f 0) 0 (list v 1.0) x)
;; a result that does not depend on the mapped argument is repeated
(check (lambda (a b) b) '(0 #f) 0 x v)
;; nested vmap: the outer maps rows, the inner elements
(check (vmap (lambda (a) (* a (tensor-exp a)))) '(0) 0 x)
(check (lambda (a) ((vmap (lambda (r b) (* r b)) '(0 #f)) a v)) '(1) 0 (tensor-randn '(3 2 3) 5))
;; vmap under graph-eval and jit gives the same bits
(define f (vmap (lambda (a b) (tensor-sum (tensor-mul (matmul a b) (matmul a b)))) '(0 #f)))
(write (same-bits? (flat (f m w)) (flat (graph-eval f m w)))) (newline)
(write (same-bits? (flat (f m w)) (flat ((jit f) m w)))) (newline)
(write (vmap (lambda (a) a))) (newline)

;; Per-example gradients: (vmap (grad loss) '(#f 0 0)) of a 64-64-10 MLP (the
;; digits model, examples/digits.lisp) equals grad over each example, bit for
;; bit, eagerly and under jit; the batched graph has the same size at every batch.
(include "parts/against_slices.lisp")  ; flat, leaves, same-bits?
(define (row x i) (reshape (tensor-slice x 0 i (+ i 1)) (cdr (tensor-shape x))))
(define (flat-tree t) (apply append (map flat (leaves t))))

(define params
  (list (list (he-normal '(64 64) 1) (tensor-mul (tensor-randn '(1 64) 5) 0.1))
        (list (glorot-uniform '(64 10) 2) (tensor-mul (tensor-randn '(1 10) 6) 0.1))))
(define (forward params x)
  (let ((l1 (car params)) (l2 (cadr params)))
    (+ (matmul (relu (+ (matmul x (car l1)) (cadr l1))) (car l2)) (cadr l2))))
;; one example: x a 64-vector, y a rank-0 label
(define (loss params x y) (cross-entropy (forward params (reshape x '(1 64))) (reshape y '(1))))

(define (batch n seed)
  (list (tensor-rand (list n 64) seed)
        (tensor-map (lambda (v) (floor (* 10 v))) (tensor-rand (list n) (+ seed 1)))))
(define (per-example-grads xs ys)
  (map (lambda (i) ((grad loss) params (row xs i) (row ys i))) (iota (car (tensor-shape xs)))))
;; the batched result's example i, as a flat list
(define (example r i) (flat-tree (map (lambda (l) (row l i)) (leaves r))))
(define (grads-agree? r xs ys)
  (let loop ((i 0) (gs (per-example-grads xs ys)))
    (or (null? gs) (and (same-bits? (example r i) (flat-tree (car gs))) (loop (+ i 1) (cdr gs))))))

(define per-example (vmap (grad loss) '(#f 0 0)))
(define per-example-jit (jit per-example))
(define b8 (batch 8 11))
(define r (apply per-example params b8))
(write (map tensor-shape (leaves r))) (newline)
(write (grads-agree? r (car b8) (cadr b8))) (newline)
(write (same-bits? (flat-tree r) (flat-tree (apply per-example-jit params b8)))) (newline)
(write (same-bits? (flat-tree r) (flat-tree (apply graph-eval per-example params b8)))) (newline)
(define b3 (batch 3 21))
(write (grads-agree? (apply per-example-jit params b3) (car b3) (cadr b3))) (newline)
;; the graph does not grow with the batch (map would add a copy per example)
(write (map (lambda (n) (apply graph-node-count per-example params (batch n 31))) '(8 32 128))) (newline)
;; gradients only for the parameters, and per-example losses with the gradient
(define pg (vmap (grad loss 0) '(#f 0 0)))
(write (same-bits? (flat-tree (apply pg params b8)) (flat-tree (apply (jit pg) params b8)))) (newline)
;; vmap inside grad: the mean of per-example losses, differentiated
(define (batch-loss params xs ys) (tensor-mean ((vmap loss '(#f 0 0)) params xs ys)))
(define g1 (apply (grad batch-loss 0) params b8))
(write (same-bits? (flat-tree g1) (flat-tree (apply (jit (grad batch-loss 0)) params b8)))) (newline)
(write (< (abs (- (car g1) (cross-entropy (forward params (car b8)) (cadr b8)))) 1e-12)) (newline)

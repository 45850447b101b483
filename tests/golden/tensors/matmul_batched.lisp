;; matmul on operands of any rank (SPEC §14), as NumPy's matmul: the last two axes
;; are matrices, the leading axes broadcast; rank-1 operands are a row (left) or a
;; column (right) whose unit axis is dropped. Each element is 0.0 + the products
;; with k ascending, so eager, graph-eval and compiled results agree bit for bit.
(define (all-equal? f . args)
  (let ((e (apply f args)))
    (and (equal? e (apply graph-eval f args)) (equal? e (apply (jit f) args)))))
(define a (reshape (arange 12) '(2 2 3)))
(define b (reshape (arange 6) '(3 2)))
(write (tensor->list (matmul a b))) (newline)
(write (tensor->list (matmul (reshape (arange 6) '(2 1 3)) (reshape (arange 12) '(2 3 2))))) (newline)
;; the batch axes broadcast: 2x1x... against 3x...
(write (tensor-shape (matmul (zeros '(2 1 4 5)) (zeros '(3 5 6))))) (newline)
(write (tensor-shape (matmul (zeros '(8 4 16 32)) (zeros '(32 16))))) (newline)
(write (tensor-shape (matmul (zeros '(5)) (zeros '(2 5 3))))) (newline)
(write (tensor-shape (matmul (zeros '(2 4 5)) (zeros '(5))))) (newline)
(write (tensor->list (matmul (tensor '(1 2)) a))) (newline)
;; eager = graph-eval = jit, on every kind of pairing
(define r4 (tensor-randn '(2 3 4 5) 1))
(define r3 (tensor-randn '(3 5 2) 2))
(define r2 (tensor-randn '(5 7) 3))
(define r1 (tensor-randn '(5) 4))
(write (list (all-equal? matmul r4 r3) (all-equal? matmul r4 r2) (all-equal? matmul r4 r1)
             (all-equal? matmul r1 r3) (all-equal? matmul (tensor-randn '(4 5) 5) r3)
             (all-equal? matmul (tensor-randn '(9 1 33 20) 6) (tensor-randn '(7 20 17) 7))))
(newline)
;; items large enough (2^21 multiply-adds) to be split over threads, compiled too
(define big-a (tensor-randn '(3 200 150) 11))
(write (list (all-equal? matmul big-a (tensor-randn '(3 150 130) 12))
             (all-equal? matmul (tensor-randn '(2 1 130 200) 13) big-a)))
(newline)
;; gradients: a broadcast batch axis sums its gradient back (sum-to)
(define (loss x y) (tensor-sum (tensor-mul (matmul x y) (matmul x y))))
(define g (graph-grad loss r4 r3))
(write (map tensor-shape (cdr g))) (newline)
(write (equal? g ((graph-compile-grad loss r4 r3) r4 r3))) (newline)
(write (equal? g ((grad loss) r4 r3))) (newline)
;; the gradient of y is the sum over the broadcast axis of per-item gradients
(define gy (caddr g))
(define per-item (caddr (graph-grad loss (tensor-slice r4 0 0 1) r3)))
(define per-item2 (caddr (graph-grad loss (tensor-slice r4 0 1 2) r3)))
(write (< (tensor-max (tensor-abs (tensor-sub gy (tensor-add per-item per-item2)))) 1e-12)) (newline)
;; grad of grad
(define (gsum x y) (tensor-sum (tensor-mul (cadr ((grad loss) x y)) x)))
(write (all-equal? (grad gsum) r4 r3)) (newline)
(write (graph-ir matmul (zeros '(2 3 4)) (zeros '(4 5)))) (newline)
(matmul (zeros '(2 3 4)) (zeros '(3 4 5)))

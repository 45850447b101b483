;; Batch families (SPEC §17, docs/jit.md "Batch families"): a jit kernel compiled at
;; leading size 32 also runs the shorter minibatches (29, 5, 1 rows) with the size read
;; at run time, bit for bit what a kernel compiled for the exact shapes and the graph
;; interpreter give; shapes outside the family, and graphs the lowerings cannot give a
;; run-time size, compile for their exact shapes.

;; A two-layer classifier's training step: cross-entropy (log-softmax along axis 1,
;; one-hot labels through tensor-take, a mean over the batch), its gradient, SGD.
(define (forward params x)
  (let ((l1 (car params)) (l2 (cadr params)))
    (+ (matmul (relu (+ (matmul x (car l1)) (cadr l1))) (car l2)) (cadr l2))))
(define (loss params x y) (cross-entropy (forward params x) y))
(define (sgd-step params x y)
  (let ((r ((grad loss 0) params x y)))
    (list (map (lambda (layer g) (map (lambda (p d) (- p (* 0.1 d))) layer g)) params (cadr r))
          (car r))))
(define step (jit sgd-step))

(define params
  (list (list (tensor-randn '(6 8) 1) (tensor-randn '(1 8) 2))
        (list (tensor-randn '(8 3) 3) (tensor-randn '(1 3) 4))))
(define (batch n seed)
  (list (tensor-randn (list n 6) seed)
        (tensor (map (lambda (i) (exact->inexact (modulo (* i 7) 3))) (iota n)))))

;; Each size: the jit result against the interpreter (equal? compares bits).
(define (check n)
  (let* ((b (batch n (+ 10 n)))
         (x (car b)) (y (cadr b)))
    (display (list n (equal? (step params x y) (graph-eval sgd-step params x y))))
    (newline)))
(for-each check '(32 29 5 1 32 29))

;; And against graph-compile's kernel for exactly the 29-row shapes, which is no
;; family's (graph-compile compiles for the example's exact shapes).
(let* ((b (batch 29 3)) (x (car b)) (y (cadr b))
       (exact (graph-compile sgd-step params x y)))
  (display (list (equal? (step params x y) (exact params x y)) (kernel-batch-family exact)))
  (newline))

;; One compiled kernel: the 29- and 5-row signatures run the 32-row family's code (ready
;; at once under KILN_JIT=sync, which this test's .env sets). The 1-row signature is no
;; member: with one row, the bias gradient's sum over the batch is no node at all (the
;; shapes agree), so that graph differs and compiles for its exact shapes.
(define ks (jit-kernels step))
(display (map kernel-batch-family ks)) (newline)
(display (map kernel-ready? ks)) (newline)
(display ks) (newline)

;; Larger than the family: a family of its own (planned at 40).
(check 40)
(display (map kernel-batch-family (jit-kernels step))) (newline)

;; A training loop over ragged minibatches: the jitted loop and the interpreted one
;; end with the same bits.
(define (train f params sizes)
  (if (null? sizes)
      params
      (let ((b (batch (car sizes) (car sizes))))
        (train f (car (f params (car b) (cadr b))) (cdr sizes)))))
(define sizes '(32 32 29 32 29 7))
(display (equal? (train step params sizes) (train (lambda (p x y) (graph-eval sgd-step p x y)) params sizes)))
(newline)

;; Row counts around the matmul's 4-row tiles, and a mean over the batch axis
;; (divided by the run-time n), an argmax along a later axis, a sum-to onto a
;; bias and a leading-axis sum.
(define (stats w x)
  (let ((h (tensor-tanh (matmul x w))))
    (list (tensor-mean h 0) (tensor-argmax h 1) (tensor-sum h 0) (tensor-mean h) (tensor-max h 1))))
(define js (jit stats))
(define w (tensor-randn '(5 7) 20))
(for-each (lambda (n)
            (let ((x (tensor-randn (list n 5) (+ 30 n))))
              (display (list n (equal? (js w x) (graph-eval stats w x))))
              (newline)))
          '(11 10 9 8 3 2))
(display (map kernel-batch-family (jit-kernels js))) (newline)

;; A constant computed from the size inside F: n itself (or a mean's 1/n) is recomputed
;; for each member; any other function of n (here its square root) means no family, and
;; every size compiles for its exact shapes, with the same bits.
(define (scaled x) (* x (sqrt (exact->inexact (car (tensor-shape x))))))
(define jsc (jit scaled))
(for-each (lambda (n)
            (let ((x (tensor-randn (list n 3) n)))
              (display (list n (equal? (jsc x) (graph-eval scaled x))))
              (newline)))
          '(4 3))
(display (map kernel-batch-family (jit-kernels jsc))) (newline)

;; Fallback: a materialised transpose of the batch (x x^T is n x n) compiles exactly.
(define (gram x) (matmul x (transpose x)))
(define jg (jit gram))
(define x6 (tensor-randn '(6 2) 5))
(define x4 (tensor-randn '(4 2) 6))
(display (list (equal? (jg x6) (graph-eval gram x6)) (equal? (jg x4) (graph-eval gram x4))))
(newline)
(display (map kernel-batch-family (jit-kernels jg))) (newline)

;; Errors name the kernel and the argument, as for any kernel.
(kernel-batch-family 3)

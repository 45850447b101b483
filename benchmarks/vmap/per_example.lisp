;;; per_example.lisp — per-example gradients of the digits MLP (64-64-10, relu,
;;; cross-entropy; examples/digits.lisp's model) at batch 128 through
;;; (jit (vmap (grad loss) '(#f 0 0))): microseconds per call, best of 7 rounds.
;;; Also the unrolled alternative (map of grad over the rows, jitted) for scale.
;;; Timings, not golden output. Run by benchmarks/vmap/run.sh with KILN_THREADS=1.
(define batch 128)
(define params
  (list (list (he-normal '(64 64) 1) (zeros '(1 64)))
        (list (glorot-uniform '(64 10) 2) (zeros '(1 10)))))
(define (forward params x)
  (let ((l1 (car params)) (l2 (cadr params)))
    (+ (matmul (relu (+ (matmul x (car l1)) (cadr l1))) (car l2)) (cadr l2))))
(define (loss params x y) (cross-entropy (forward params (reshape x '(1 64))) (reshape y '(1))))
(define xs (tensor-rand (list batch 64) 3))
(define ys (tensor-map (lambda (v) (floor (* 10 v))) (tensor-rand (list batch) 4)))
(define per-example (jit (vmap (grad loss 0) '(#f 0 0))))
(define t0 (now-micros))
(per-example params xs ys)
(jit-wait per-example)
(define first-call-ms (/ (- (now-micros) t0) 1000.0))
(define (per-call g n)
  (let ((t0 (now-micros)))
    (let loop ((i 0)) (when (< i n) (g params xs ys) (loop (+ i 1))))
    (/ (- (now-micros) t0) (* 1.0 n))))
(define (best-of g n rounds)
  (let loop ((i 0) (best 1e30)) (if (= i rounds) best (loop (+ i 1) (min best (per-call g n))))))
(display (list 'nodes (graph-node-count (vmap (grad loss 0) '(#f 0 0)) params xs ys)
               'first-call-ms first-call-ms
               'vmap-us (best-of per-example 200 7)))
(newline)

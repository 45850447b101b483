;;; vmap_scan_grad.lisp — per-example gradients through a scan (issue 29): an Elman RNN,
;;; hidden 32, 50 steps, batch 64, the gradient of U for every example, as one jitted
;;; (vmap (grad loss 0) '(#f 0 0)) against a jitted (grad loss 0) mapped over the
;;; examples; best of 7 calls each. KILN_THREADS=1 KILN_JIT=sync; timings, not golden output.
(define ks (random-split 3 4))
(define u (tensor-mul 0.2 (tensor-randn '(32 32) (list-ref ks 0))))
(define hs (tensor-mul 0.1 (tensor-randn '(64 32) (list-ref ks 2))))
(define seqs (tensor-randn '(64 50 32) (list-ref ks 3)))
(define (loss u h0 xs)
  (let ((r (scan (lambda (h x)
                   (let ((h2 (tensor-tanh (tensor-add (matmul h u) x)))) (cons h2 (tensor-sum (tensor-mul h2 h2)))))
                 h0 xs)))
    (+ (tensor-sum (cdr r)) (tensor-sum (car r)))))
(define pe (jit (vmap (grad loss 0) '(#f 0 0))))
(define (slice-of x i) (reshape (tensor-slice x 0 i (+ i 1)) (cdr (tensor-shape x))))
(define gl (jit (grad loss 0)))
(define (by-map) (map (lambda (i) (gl u (slice-of hs i) (slice-of seqs i))) (iota 64)))
(define (timed thunk) (let* ((t0 (now-micros)) (v (thunk)) (t1 (now-micros))) (/ (- t1 t0) 1000.0)))
(define (best thunk) (apply min (map (lambda (k) (timed thunk)) (iota 7))))
(define (rows t) (map (lambda (i) (slice-of t i)) (iota 64)))
(display "per-example RNN gradients, batch 64: vmap ") (display (best (lambda () (pe u hs seqs))))
(display " ms, map of grad ") (display (best by-map))
(display (if (equal? (rows (cadr (pe u hs seqs))) (map cadr (by-map))) " ms, the same bits" " ms, DIFFERENT"))
(newline)

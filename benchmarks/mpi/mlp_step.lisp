;; mlp_step.lisp — data-parallel SGD steps per second (docs/distributed.md, RESULTS).
;;
;;     KILN_THREADS=1 mpirun -np P kiln benchmarks/mpi/mlp_step.lisp [STEPS]
;;
;; A 512-512-512-10 MLP (three weight layers, 512 wide), global batch 256 split into
;; P contiguous blocks by mpi-shard; each step is one jitted kernel: forward,
;; gradient, mpi-allreduce of the gradients (4.2 MB) and of the loss, SGD. Rank 0
;; prints steps per second over STEPS steps after 5 warm-up steps, and the seconds
;; spent in the exchange alone (the same allreduce, eager, on the same tree).
(define steps (if (pair? (cdr (command-line))) (string->number (cadr (command-line))) 50))
(define rank (mpi-rank))
(define p (mpi-size))
(define global-batch 256)
(define rows (mpi-shard global-batch))
(define n-local (length rows))
(define x-all (- (* 2.0 (tensor-rand (list global-batch 512) 1)) 1.0))
(define y-all (tensor (map (lambda (i) (exact->inexact (modulo (* i 7) 10))) (iota global-batch))))
(define x (tensor-take x-all rows))
(define y (tensor-take y-all rows))
(define params
  (list (list (he-normal '(512 512) 11) (zeros '(1 512)))
        (list (he-normal '(512 512) 12) (zeros '(1 512)))
        (list (glorot-uniform '(512 10) 13) (zeros '(1 10)))))
(define (forward ps x)
  (let loop ((ps ps) (h x))
    (let ((z (+ (matmul h (caar ps)) (cadar ps))))
      (if (null? (cdr ps)) z (loop (cdr ps) (relu z))))))
(define share (/ n-local (exact->inexact global-batch)))
(define (loss ps x y) (* (cross-entropy (forward ps x) y) share))
(define step
  (jit (lambda (ps x y)
         (let* ((r ((grad loss 0) ps x y))
                (g (mpi-allreduce (cadr r) 'sum)))
           (list (sgd-step ps g 0.01) (mpi-allreduce (car r) 'sum))))))
(define (run n ps)
  (if (= n 0) ps (run (- n 1) (car (step ps x y)))))
(define (seconds thunk)
  (mpi-barrier)
  (let ((t0 (current-jiffy)))
    (thunk)
    (mpi-barrier)
    (/ (- (current-jiffy) t0) (exact->inexact (jiffies-per-second)))))
(define warm (run 5 params))
(define t (seconds (lambda () (run steps warm))))
(define grads (cadr ((grad loss 0) params x y)))
(define t-exchange (seconds (lambda () (let loop ((i 0)) (when (< i steps) (mpi-allreduce grads 'sum) (loop (+ i 1)))))))
(when (= rank 0)
  (display (format "processes ~a local-batch ~a steps/s ~,2f exchange-ms/step ~,3f~%"
                   p n-local (/ steps t) (* 1000 (/ t-exchange steps)))))

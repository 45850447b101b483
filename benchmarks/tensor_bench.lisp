;;; tensor_bench.lisp — Kiln's main benchmark: SGD training of one layer,
;;; interpreted graph-grad against one kernel compiled by graph-compile-grad, and
;;; against the whole step (loss, gradients, update) jitted into one kernel.
;;; Timings, not golden output. Run it with `make bench` (Kiln side only) or
;;; benchmarks/run_tensor_bench.sh (Kiln with KILN_THREADS=1 and 2, the hand-written
;;; C step of benchmarks/c_step/, 1-thread float64 PyTorch; writes the table in
;;; benchmarks/RESULTS.md).
;;;
;;;   loss = mean((relu(x W + b) - t)^2)
;;;
;;; b is a scalar; the mean's divisor `nn` is passed as an argument (the loss
;;; is written as sum / nn). Inputs come from
;;;   val(i, off) = ((7 i + off) mod 17 - 8) / 8
;;; (integer-derived /8: exactly representable, so Kiln and PyTorch start from
;;; bit-identical data): X[i][j] = val(i k + j, 0) (m x k), T[i][j] = val(i n + j, 5)
;;; (m x n), W0[i][j] = val(i n + j, 3) (k x n), b0 = val(1, 0).
;;; Plain SGD, learning rate 0.01, on W and b. Two sizes: 8x16->8 for 1000 steps
;;; and 64x256->64 for 100 steps. Each path runs three times as a warm-up, then
;;; three timed runs; the median is reported. (One warm-up run was not enough:
;;; after graph-grad's heavy allocation, the collector's heap takes a few runs to
;;; settle, and the first 8x16 compiled runs took 1.4-2.0 ms against a steady
;;; 1.0-1.2 ms. The C and PyTorch sides warm up the same way.) The compiled kernel returns exactly what
;;; graph-grad returns, bit for bit, so both paths must end on the SAME loss; the
;;; PyTorch side should agree with it to at least 12 significant digits.
;;;
;;; Output: a line naming KILN_THREADS, then one line per size (parsed by
;;; run_tensor_bench.sh):
;;;   8x16->8 x1000: graph-grad 12.345 ms, compiled 0.678 ms, ratio 18.2x, compile 150.1 ms,
;;;     final loss 0.123 (graph-grad) 0.123 (compiled): identical
;;;   8x16->8 x1000: jit step 0.456 ms, compile 160.2 ms, final loss 0.123: identical

(define (val i off) (/ (- (modulo (+ (* 7 i) off) 17) 8) 8.0))

;; rows x cols, element [i][j] = val(i * cols + j, off)
(define (matrix rows cols off)
  (tensor (map (lambda (i) (map (lambda (j) (val (+ (* i cols) j) off)) (iota cols)))
               (iota rows))))

(define (loss x w b t nn)
  (let ((d (tensor-sub (relu (tensor-add (matmul x w) b)) t)))
    (/ (tensor-sum (tensor-mul d d)) nn)))

;; Calls f with one size's inputs: X (m x k), T (m x n), W0 (k x n), b0 and nn.
(define (with-inputs m k n f)
  (f (matrix m k 0) (matrix m n 5) (matrix k n 3) (val 1 0) (exact->inexact (* m n))))

;; One SGD run. `grad` computes (loss gx gW gb gt gnn): graph-grad itself
;; (interpreted: it traces and optimises the graph on every call) or a kernel
;; from graph-compile-grad. Identical loop either way. Returns the last step's
;; whole result (its loss is computed before that step's update).
(define (train grad x t w0 b0 nn steps)
  (let loop ((i 0) (w w0) (b b0) (last #f))
    (if (= i steps)
        last
        (let* ((r (grad x w b t nn))
               (gw (caddr r))
               (gb (cadddr r)))
          (loop (+ i 1) (tensor-sub w (tensor-mul 0.01 gw)) (- b (* 0.01 gb)) r)))))

;; The same SGD run with the whole step (loss, gradients and update) as one
;; procedure: `jit` of it is one kernel per call (docs/graph.md, "Nesting").
(define (sgd-step x w b t nn)
  (let ((r (graph-grad loss x w b t nn)))
    (list (tensor-sub w (tensor-mul 0.01 (caddr r))) (- b (* 0.01 (cadddr r))) (car r))))

;; Returns the last step's loss (computed before that step's update), as train's
;; result's car.
(define (train-steps step x t w0 b0 nn steps)
  (let loop ((i 0) (w w0) (b b0) (last #f))
    (if (= i steps)
        last
        (let ((r (step x w b t nn)))
          (loop (+ i 1) (car r) (cadr r) (caddr r))))))

;; Milliseconds of one call of thunk, and its value.
(define (timed thunk)
  (let* ((t0 (now-micros)) (v (thunk)) (t1 (now-micros)))
    (cons (/ (- t1 t0) 1000.0) v)))

;; Median of three timed runs after three warm-up runs: (median-ms . value).
(define (median-of-3 thunk)
  (thunk)
  (thunk)
  (thunk)
  (let* ((a (timed thunk)) (b (timed thunk)) (c (timed thunk))
         (ts (sort (list (car a) (car b) (car c)) <)))
    (cons (cadr ts) (cdr a))))

(define (round3 x) (/ (round (* x 1000.0)) 1000.0))
(define (round1 x) (/ (round (* x 10.0)) 10.0))

(define (bench m k n steps)
  (with-inputs m k n (lambda (x t w0 b0 nn) (bench-on x t w0 b0 nn m k n steps))))

(define (bench-on x t w0 b0 nn m k n steps)
  (let* ((interp (lambda (x w b t nn) (graph-grad loss x w b t nn)))
         (c (timed (lambda () (graph-compile-grad loss x w0 b0 t nn))))
         (kernel (cdr c))
         (ri (median-of-3 (lambda () (car (train interp x t w0 b0 nn steps)))))
         (rc (median-of-3 (lambda () (car (train kernel x t w0 b0 nn steps))))))
    (display (format "~ax~a->~a x~a: graph-grad ~a ms, compiled ~a ms, ratio ~ax, compile ~a ms, final loss ~s (graph-grad) ~s (compiled): ~a"
                     m k n steps (round3 (car ri)) (round3 (car rc)) (round1 (/ (car ri) (car rc)))
                     (round1 (car c)) (cdr ri) (cdr rc)
                     (if (eqv? (cdr ri) (cdr rc)) "identical" "DIFFERENT")))
    (newline)
    (let* ((jstep (jit sgd-step))
           ;; The first call traces and queues the compile (SPEC §17); jit-wait makes
           ;; the kernel ready, so the steps timed below are the kernel's.
           (cj (timed (lambda () (jstep x w0 b0 t nn) (jit-wait jstep))))
           (rj (median-of-3 (lambda () (train-steps jstep x t w0 b0 nn steps)))))
      (display (format "~ax~a->~a x~a: jit step ~a ms, compile ~a ms, final loss ~s: ~a"
                       m k n steps (round3 (car rj)) (round1 (car cj)) (cdr rj)
                       (if (eqv? (cdr rj) (cdr rc)) "identical" "DIFFERENT")))
      (newline)
      (and (eqv? (cdr ri) (cdr rc)) (eqv? (cdr rj) (cdr rc))))))

;; `--checks`: instead of timing, the fingerprints benchmarks/c_step/step.c must
;; match bit for bit (run_tensor_bench.sh compares them): for the compiled path's
;; last step, the loss, sum(gx) and sum(gt) (tensor-sum: serial, row-major, from
;; 0.0, as step.c sums), gnn and gb. One line per size:
;;   8x16->8 x1000: final loss L, checks sum(gx) A sum(gt) B gnn C gb D
(define (checks m k n steps)
  (let ((r (with-inputs m k n
             (lambda (x t w0 b0 nn)
               (train (graph-compile-grad loss x w0 b0 t nn) x t w0 b0 nn steps)))))
    (display (format "~ax~a->~a x~a: final loss ~s, checks sum(gx) ~s sum(gt) ~s gnn ~s gb ~s"
                     m k n steps (list-ref r 0) (tensor-sum (list-ref r 1))
                     (tensor-sum (list-ref r 4)) (list-ref r 5) (list-ref r 3)))
    (newline)))

(when (member "--checks" (cdr (command-line)))
  (checks 8 16 8 1000)
  (checks 64 256 64 100)
  (exit 0))

;; Which thread count the kernels' matmuls may use (run_tensor_bench.sh runs this
;; file with KILN_THREADS=1 and again with 2).
(display (format "tensor_bench: KILN_THREADS=~a"
                 (or (get-environment-variable "KILN_THREADS") "unset (all cores)")))
(newline)

(define ok-small (bench 8 16 8 1000))
(define ok-medium (bench 64 256 64 100))
(unless (and ok-small ok-medium)
  (display "tensor_bench: the compiled and interpreted final losses differ" (current-error-port))
  (newline (current-error-port))
  (exit 1))

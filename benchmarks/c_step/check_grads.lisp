;;; check_grads.lisp — the gradients step.c must match bit for bit.
;;;
;;; Runs tensor_bench.lisp's training through its graph-compile-grad kernel (same
;;; inputs, same loop) and prints, for the LAST step, the loss and fingerprints of the
;;; gradients SGD does not use: sum(gx) and sum(gt) (tensor-sum: serial, row-major,
;;; from 0.0; step.c sums the same way), gnn and gb. One line per size:
;;;   8x16->8 x1000: final loss L, checks sum(gx) A sum(gt) B gnn C gb D
;;; benchmarks/run_tensor_bench.sh compares them with step.c's "checks".

(define (val i off) (/ (- (modulo (+ (* 7 i) off) 17) 8) 8.0))

(define (matrix rows cols off)
  (tensor (map (lambda (i) (map (lambda (j) (val (+ (* i cols) j) off)) (iota cols)))
               (iota rows))))

(define (loss x w b t nn)
  (let ((d (tensor-sub (relu (tensor-add (matmul x w) b)) t)))
    (/ (tensor-sum (tensor-mul d d)) nn)))

;; tensor_bench.lisp's train, returning the last step's whole result list.
(define (train grad x t w0 b0 nn steps)
  (let loop ((i 0) (w w0) (b b0) (last #f))
    (if (= i steps)
        last
        (let* ((r (grad x w b t nn))
               (gw (caddr r))
               (gb (cadddr r)))
          (loop (+ i 1) (tensor-sub w (tensor-mul 0.01 gw)) (- b (* 0.01 gb)) r)))))

(define (check m k n steps)
  (let* ((x (matrix m k 0))
         (t (matrix m n 5))
         (w0 (matrix k n 3))
         (b0 (val 1 0))
         (nn (exact->inexact (* m n)))
         (kernel (graph-compile-grad loss x w0 b0 t nn))
         (r (train kernel x t w0 b0 nn steps)))
    (display (format "~ax~a->~a x~a: final loss ~s, checks sum(gx) ~s sum(gt) ~s gnn ~s gb ~s"
                     m k n steps (list-ref r 0) (tensor-sum (list-ref r 1))
                     (tensor-sum (list-ref r 4)) (list-ref r 5) (list-ref r 3)))
    (newline)))

(check 8 16 8 1000)
(check 64 256 64 100)

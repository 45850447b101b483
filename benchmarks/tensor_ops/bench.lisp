;;; bench.lisp — Kiln side of benchmarks/tensor_ops (run.sh runs all three sides).
;;; Prints "NAME MICROSECONDS-PER-CALL" lines: the best of 3 timed batches, minus
;;; the cost of the same empty loop, so only the builtin call remains.
(define (time-loop thunk reps)
  (let ((t0 (now-micros)))
    (do ((i 0 (+ i 1))) ((= i reps)) (thunk))
    (- (now-micros) t0)))
(define (nothing) #f)
(define (best-of-3 thunk reps)
  (let loop ((k 0) (best #f))
    (if (= k 3)
        best
        (let ((t (- (time-loop thunk reps) (time-loop nothing reps))))
          (loop (+ k 1) (if (or (not best) (< t best)) t best))))))
(define (report name thunk reps)
  (thunk)  ; warm up
  (let ((us (/ (exact->inexact (best-of-3 thunk reps)) reps)))
    (display name) (display " ") (display us) (newline)))

(define a8 (tensor-rand '(8 16) 1))
(define b8 (tensor-rand '(16 8) 2))
(define a64 (tensor-rand '(64 256) 3))
(define b64 (tensor-rand '(256 64) 4))
(define a512 (tensor-rand '(512 512) 5))
(define b512 (tensor-rand '(512 512) 6))
(define x (tensor-rand '(256 64) 7))
(define row (tensor-rand '(64) 8))
(define s2 (tensor '((1 2) (3 4))))

(report "matmul_8x16x8" (lambda () (matmul a8 b8)) 100000)
(report "matmul_64x256x64" (lambda () (matmul a64 b64)) 2000)
(report "matmul_512x512x512" (lambda () (matmul a512 b512)) 10)
(report "add_256x64_bcast_64" (lambda () (tensor-add x row)) 20000)
(report "sum_256x64" (lambda () (tensor-sum x)) 20000)
(report "add_2x2" (lambda () (tensor-add s2 s2)) 1000000)

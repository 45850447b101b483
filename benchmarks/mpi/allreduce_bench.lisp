;; allreduce_bench.lisp — mpi-allreduce of a 10 MB tree (1 310 720 doubles in one
;; tensor, and the same split over 8 leaves), milliseconds per call on rank 0.
;;
;;     mpirun -np 2 kiln benchmarks/mpi/allreduce_bench.lisp
(define reps 40)
(define big (tensor-rand '(1310720) (+ 1 (mpi-rank))))
(define eight (map (lambda (k) (tensor-rand '(163840) (+ k (* 10 (mpi-rank))))) (iota 8)))
(define (ms thunk)
  (thunk)
  (mpi-barrier)
  (let ((t0 (current-jiffy)))
    (let loop ((i 0)) (when (< i reps) (thunk) (loop (+ i 1))))
    (mpi-barrier)
    (/ (* 1000.0 (- (current-jiffy) t0)) (jiffies-per-second) reps)))
(define one-leaf (ms (lambda () (mpi-allreduce big))))
(define eight-leaves (ms (lambda () (mpi-allreduce eight))))
(define in-jit (let ((f (jit (lambda (t) (mpi-allreduce t))))) (ms (lambda () (f big)))))
(when (= (mpi-rank) 0)
  (display (format "processes ~a allreduce-10MB-ms ~,3f eight-leaves-ms ~,3f in-jit-ms ~,3f~%"
                   (mpi-size) one-leaf eight-leaves in-jit)))

;;; step.lisp — one cell of the width x depth x threads table (issue 30, item 5):
;;; a jitted SGD step of a ReLU MLP (WIDTH wide, DEPTH layers, batch 64,
;;; mean-square loss, float64; parameters donated, as a training loop does), timed
;;; over STEPS steps after the kernel is ready and two warm-up steps. Prints one
;;; line: wall ms per step, and CPU ms per step of the whole process (user + system
;;; of every thread, from /proc/self/stat, in clock ticks of 10 ms: run.sh picks
;;; STEPS so a cell takes at least about a second). Timings, not golden output.
;;;
;;;     kiln benchmarks/scale/step.lisp WIDTH DEPTH STEPS
(define args (map string->number (cdr (command-line))))
(define width (car args))
(define depth (cadr args))
(define steps (caddr args))
(define batch 64)
(include "../lib/mlp.lisp")
(define X (tensor-randn (list batch width) 100))
(define Y (tensor-randn (list batch width) 101))
(define train-step (mlp-train-step relu))
(define step (jit train-step 'donate 0))
;; CPU time of the process in ms: utime + stime (fields 14 and 15), 100 ticks a second.
(define (cpu-ms)
  (let ((fields (string-split (call-with-input-file "/proc/self/stat" read-line) #\space)))
    (* 10.0 (+ (string->number (list-ref fields 13)) (string->number (list-ref fields 14))))))
(define (run params n) (if (= n 0) params (run (car (step params X Y)) (- n 1))))
(define params (mlp-params width depth))
(define warm (run params 1))
(jit-wait step)
(define ready (run warm 2))
(define c0 (cpu-ms))
(define t0 (now-micros))
(define done (run ready steps))
(define wall (/ (- (now-micros) t0) 1000.0 steps))
(define cpu (/ (- (cpu-ms) c0) steps))
(display (format "(kiln width ~a depth ~a steps ~a wall-ms ~a cpu-ms ~a)" width depth steps wall cpu))
(newline)

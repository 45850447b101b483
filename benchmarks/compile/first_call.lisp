;;; first_call.lisp — how long the first call of a jitted SGD step on a new
;;; signature takes, against MLP depth (issue 30, SPEC §17). Width 64, batch 32,
;;; tanh layers, mean-square loss, float64. Run with KILN_CACHE_DIR=off (run.sh
;;; does) so every compile is a real one; with KILN_JIT=sync the first call
;;; includes the compile, by default (tiered) it is traced and interpreted while
;;; the kernel compiles in the background. Timings, not golden output.
;;;
;;;     kiln benchmarks/compile/first_call.lisp [LAYERS ...]
(define width 64)
(define batch 32)
(include "../lib/mlp.lisp")
(define X (tensor-randn (list batch width) 100))
(define Y (tensor-randn (list batch width) 101))
(define train-step (mlp-train-step tensor-tanh))
(define (ms t0) (/ (- (now-micros) t0) 1000.0))
(define (measure layers)
  (let* ((params (mlp-params width layers))
         (step (jit train-step))  ; a fresh procedure: a new signature
         (t0 (now-micros))
         (first (step params X Y))
         (first-ms (ms t0))
         (t1 (now-micros)))
    (jit-wait step)
    (let* ((ready-ms (+ first-ms (ms t1)))
           (t2 (now-micros))
           (again (step params X Y))
           (kernel-ms (ms t2)))
      (display (list 'layers layers 'first-call-ms first-ms 'kernel-ready-ms ready-ms 'kernel-call-ms kernel-ms
                     'same (equal? first again)))
      (newline))))
(for-each (lambda (a) (measure (string->number a)))
          (let ((args (cdr (command-line)))) (if (null? args) '("1" "2" "4" "8" "16" "32") args)))

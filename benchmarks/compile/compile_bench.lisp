;;; compile_bench.lisp — compile time of graph-compile-grad (and of a jitted whole
;;; training step) against the depth of a tanh MLP, with the kernel's time per call
;;; against interpreted graph-grad. Run with KILN_CACHE_DIR=off (run.sh does) so
;;; every compile is a real one.
;;;
;;;     kiln benchmarks/compile/compile_bench.lisp [LAYERS ...]
;;;
;;; Width 32, batch 16, float64; layer l is tanh(h W_l + b_l), mean-square loss.
(define width 32)
(define batch 16)
(define (layer seed)
  (list (tensor-mul (tensor-randn (list width width) seed) (/ 1.0 (sqrt width)))
        (zeros (list 1 width))))
(define (params-of n) (map layer (iota n 1)))
(define X (tensor-randn (list batch width) 100))
(define Y (tensor-randn (list batch width) 101))
(define (forward params h)
  (if (null? params) h
      (forward (cdr params) (tensor-tanh (+ (matmul h (caar params)) (cadar params))))))
(define (loss params x y)
  (let ((d (- (forward params x) y))) (tensor-mean (* d d))))
(define (train-step params x y)
  (let* ((r ((grad loss 0) params x y)))
    (list (tree-map (lambda (p dp) (- p (* 0.01 dp))) params (cadr r)) (car r))))
(define step-jit (jit train-step))

(define (seconds thunk)
  (let* ((t0 (now-micros)) (r (thunk))) (cons (/ (- (now-micros) t0) 1e6) r)))
(define (us-per-call n thunk)
  (let ((t0 (now-micros)))
    (let loop ((i 0)) (when (< i n) (thunk) (loop (+ i 1))))
    (/ (- (now-micros) t0) (exact->inexact n))))
(define (calls-for us-estimate) (max 3 (exact (round (/ 50000 (max us-estimate 1))))))
(define (median xs)
  (let ((v (list->vector (sort xs <))))
    (vector-ref v (quotient (vector-length v) 2))))
;; Per-call times of two thunks, in 9 alternating batches of about 50 ms each:
;; the medians, so a collection or a busy neighbour in one batch does not
;; decide the ratio.
(define (side-by-side a b)
  (a) (b)
  (let* ((na (calls-for (us-per-call 1 a))) (nb (calls-for (us-per-call 1 b))))
    (let loop ((i 0) (ta '()) (tb '()))
      (if (= i 9)
          (cons (median ta) (median tb))
          (let* ((x (us-per-call na a)) (y (us-per-call nb b)))
            (loop (+ i 1) (cons x ta) (cons y tb)))))))

(define (bench layers)
  (let* ((p (params-of layers))
         (nodes (graph-node-count loss p X Y))
         (c (seconds (lambda () (graph-compile-grad loss p X Y))))
         (kernel (cdr c))
         (times (side-by-side (lambda () (kernel p X Y)) (lambda () (graph-grad loss p X Y))))
         (compiled (car times))
         (interp (cdr times))
         (same (equal? (kernel p X Y) (graph-grad loss p X Y)))
         (j (seconds (lambda () (step-jit p X Y)))))
    (display (format "~4d layers ~6d nodes  graph-compile-grad ~7,3f s  kernel ~9,1f us  graph-grad ~9,1f us  (~5,1fx)  ~a  jit step ~7,3f s~%"
                     layers nodes (car c) compiled interp (/ interp compiled)
                     (if same "bit-identical" "DIFFERENT") (car j)))))

(define requested (map string->number (cdr (command-line))))
(for-each bench (if (null? requested) '(1 4 16 32 64) requested))

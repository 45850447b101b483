;; mlp_jit.lisp — a 3-layer MLP learns XOR-like quadrants, one jitted kernel per step.
;;
;; The parameters are one tree: a list of (W b) layers. A whole training step
;; (forward, loss, gradients with `grad`, the SGD update of every layer) is one
;; procedure wrapped in `jit`, so it is traced and compiled once, on the first call,
;; and every later step calls the same native kernel (docs/jit.md, "jit"). The data
;; are a fixed grid and the weights start from seeded tensor-randn, so the printed
;; losses are the same on every run.
;;
;;     kiln examples/mlp_jit.lisp

;; A script that loads this file may define mlp-steps first (the golden test
;; tests/golden/transforms/mlp_jit runs a short version).
(define steps (guard (e (#t 600)) mlp-steps))
(define report-every (max 1 (quotient steps 6)))

;; Points on a 10x10 grid over (-1, 1)^2, off the axes; class 1 where x and y have
;; the same sign, class 0 elsewhere: not linearly separable.
(define grid-size 10)
(define (coordinate i) (+ -0.9 (* 0.2 i)))
(define samples                          ; ((CLASS X Y) ...)
  (let loop ((i 0) (j 0) (acc '()))
    (cond ((= i grid-size) (reverse acc))
          ((= j grid-size) (loop (+ i 1) 0 acc))
          (else
           (let ((x (coordinate i)) (y (coordinate j)))
             (loop i (+ j 1) (cons (list (if (> (* x y) 0) 1 0) x y) acc)))))))
(define X (tensor (map cdr samples)))
(define Y (tensor (map (lambda (s) (if (= (car s) 0) '(1.0 0.0) '(0.0 1.0))) samples)))

;; Layer sizes 2 -> 16 -> 16 -> 2; each layer is (W b).
(define (layer fan-in fan-out seed)
  (list (tensor-mul (tensor-randn (list fan-in fan-out) seed) (/ 1.5 (sqrt fan-in)))
        (zeros (list 1 fan-out))))
(define initial-params (list (layer 2 16 1) (layer 16 16 2) (layer 16 2 3)))

;; tanh between layers, none after the last.
(define (forward params x)
  (let loop ((layers params) (h x))
    (let* ((wb (car layers))
           (z (+ (matmul h (car wb)) (cadr wb))))
      (if (null? (cdr layers)) z (loop (cdr layers) (tensor-tanh z))))))

;; Mean cross-entropy of a log-softmax over the two classes.
(define (loss params x y)
  (let* ((z (forward params x))
         (s (- z (tensor-max z 1 #t)))
         (logp (- s (tensor-log (tensor-sum (tensor-exp s) 1 #t)))))
    (- (tensor-mean (tensor-sum (* y logp) 1)))))

(define learning-rate 0.3)

;; One step: the loss, its gradient with respect to the parameter tree only
;; (argument 0: no backward pass for the data), and the updated tree, which has the
;; parameters' structure. Returns (NEW-PARAMS LOSS).
(define (train-step params x y)
  (let* ((r ((grad loss 0) params x y))
         (g (cadr r)))
    (list (map (lambda (wb gwb) (map (lambda (p dp) (- p (* learning-rate dp))) wb gwb))
               params g)
          (car r))))

(define jstep (jit train-step))

(define (rounded v digits)
  (let ((scale (expt 10.0 digits))) (/ (round (* v scale)) scale)))

(define (accuracy params)
  (let loop ((rows (tensor->list (forward params X))) (labels samples) (right 0))
    (if (null? rows)
        (/ (exact->inexact right) (length samples))
        (let ((predicted (if (> (cadr (car rows)) (car (car rows))) 1 0)))
          (loop (cdr rows) (cdr labels)
                (if (= predicted (car (car labels))) (+ right 1) right))))))

(let train ((step 0) (params initial-params))
  (if (= step steps)
      (begin
        (display (format "accuracy ~a~%" (accuracy params)))
        (display (format "kernels compiled ~a~%" (length (jit-kernels jstep)))))
      (let* ((r (jstep params X Y))
             (loss-now (cadr r)))
        (when (= 0 (modulo step report-every))
          (display (format "step ~a loss ~a~%" step (rounded loss-now 4))))
        (train (+ step 1) (car r)))))

;;; mlp.lisp — the square MLP whose jitted SGD step the compile and scale
;;; benchmarks time (compile/first_call.lisp, scale/step.lisp include it): DEPTH
;;; layers WIDTH wide, each (W b) with W randn scaled by 1/sqrt(WIDTH) and b zero,
;;; a mean-square loss, float64, and one SGD step at rate 0.01.

;; The parameters: layer i (from 1) drawn with seed i.
(define (mlp-params width depth)
  (map (lambda (seed)
         (list (tensor-mul (tensor-randn (list width width) seed) (/ 1.0 (sqrt width)))
               (zeros (list 1 width))))
       (iota depth 1)))

;; (train-step params x y) with ACTIVATION after every layer: (params' loss).
(define (mlp-train-step activation)
  (define (forward params h)
    (if (null? params) h
        (forward (cdr params) (activation (+ (matmul h (caar params)) (cadar params))))))
  (define (loss params x y) (let ((d (- (forward params x) y))) (tensor-mean (* d d))))
  (lambda (params x y)
    (let ((r ((grad loss 0) params x y)))
      (list (tree-map (lambda (p dp) (- p (* 0.01 dp))) params (cadr r)) (car r)))))

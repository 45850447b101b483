;; spiral_mlp.lisp — a 2-layer MLP learns two interleaved spirals.
;;
;; The data set is generated deterministically (no randomness), the weights
;; start from seeded tensor-randn, and every step re-traces the loss with
;; graph-grad and applies plain SGD. Prints the loss every 200 epochs and the
;; final training accuracy.

(define points-per-class 60)
(define pi 3.141592653589793)

;; Class c's point i: radius grows along the arm, the two arms are half a turn apart.
(define (spiral-point c i)
  (let* ((t (/ (exact->inexact i) points-per-class))
         (r (+ 0.1 (* 0.9 t)))
         (theta (+ (* t 2.0 pi) (* c pi))))
    (list (* r (cos theta)) (* r (sin theta)))))

(define (append-map-classes)
  (let loop ((c 0) (acc '()))
    (if (= c 2)
        (reverse acc)
        (loop (+ c 1)
              (let inner ((i 0) (acc acc))
                (if (= i points-per-class) acc
                    (inner (+ i 1) (cons (cons c (spiral-point c i)) acc))))))))

(define samples (append-map-classes))  ; ((CLASS X Y) ...)
(define X (tensor (map cdr samples)))
(define Y (tensor (map (lambda (s) (if (= (car s) 0) '(1.0 0.0) '(0.0 1.0))) samples)))

(define hidden 32)
(define (init shape seed scale) (tensor-mul (tensor-randn shape seed) scale))

;; Cross-entropy of a log-softmax over the two classes, averaged over the samples.
(define (forward x w1 b1 w2 b2)
  (+ (matmul (tensor-tanh (+ (matmul x w1) b1)) w2) b2))

(define (loss x y w1 b1 w2 b2)
  (let* ((z (forward x w1 b1 w2 b2))
         (s (- z (tensor-max z 1 #t)))
         (logp (- s (tensor-log (tensor-sum (tensor-exp s) 1 #t)))))
    (- (tensor-mean (tensor-sum (* y logp) 1)))))

(define (accuracy w1 b1 w2 b2)
  (let ((z (tensor->list (forward X w1 b1 w2 b2))))
    (let loop ((rows z) (labels samples) (right 0))
      (if (null? rows)
          (/ (exact->inexact right) (length samples))
          (let ((predicted (if (> (cadr (car rows)) (car (car rows))) 1 0)))
            (loop (cdr rows) (cdr labels) (if (= predicted (car (car labels))) (+ right 1) right)))))))

(define learning-rate 0.5)
(define (sgd w g) (tensor-sub w (tensor-mul g learning-rate)))

(let train ((epoch 0)
            (w1 (init (list 2 hidden) 1 2.5)) (b1 (zeros (list 1 hidden)))
            (w2 (init (list hidden 2) 2 0.3)) (b2 (zeros '(1 2))))
  (let* ((r (graph-grad loss X Y w1 b1 w2 b2))
         (grads (cdddr r)))                 ; skip the loss, dloss/dX and dloss/dY
    (when (= 0 (modulo epoch 200))
      (display (format "epoch ~a loss ~a~%" epoch (car r))))
    (if (< epoch 2000)
        (train (+ epoch 1)
               (sgd w1 (list-ref grads 0)) (sgd b1 (list-ref grads 1))
               (sgd w2 (list-ref grads 2)) (sgd b2 (list-ref grads 3)))
        (display (format "accuracy ~a~%" (accuracy w1 b1 w2 b2))))))

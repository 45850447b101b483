;; A jitted training step (loss, gradients and the optimiser update in one kernel)
;; gives bit for bit the eager step's params and state, ten steps in a row.
(define x (tensor '((1.0 2.0) (-1.0 0.5) (0.0 3.0))))
(define y (tensor '((1.0) (0.0) (2.0))))
(define (loss params x)
  (tensor-mean (square (- (+ (matmul x (car params)) (cadr params)) y))))
(define (grads params x) (cdr (graph-grad loss params x)))
(define p0 (list (tensor '((0.5) (-0.25))) (vector 0.1 (tensor '(0.0)))))
(define (loss params x)
  (let ((b (cadr params)))
    (tensor-mean (square (- (+ (matmul x (car params)) (vector-ref b 0) (vector-ref b 1)) y)))))

(define (adam state params x) (adam-step state params (car (grads params x)) 0.05))
(define (momentum state params x) (momentum-step state params (car (grads params x)) 0.05 0.8))
(define (sgd state params x) (cons (sgd-step params (car (grads params x)) 0.05) state))

(define (run step init n)
  (let loop ((i 0) (state (init p0)) (params p0))
    (if (= i n)
        (cons params state)
        (let ((r (step state params x))) (loop (+ i 1) (cdr r) (car r))))))

(for-each
 (lambda (name step init)
   (let* ((j (jit step))
          (eager (run step init 10))
          (jitted (run j init 10)))
     (display name) (display ": ")
     (write (equal? eager jitted)) (display " kernels ") (write (length (jit-kernels j)))
     (newline) (write eager) (newline)))
 '(sgd momentum adam)
 (list sgd momentum adam)
 (list (lambda (p) '()) momentum-init adam-init))

;; graph-eval of a step agrees as well
(define s1 (adam-init p0))
(write (equal? (adam s1 p0 x) (graph-eval adam s1 p0 x))) (newline)

;; The tree library on named trees (SPEC §14): tree-map, tree-ref, tree-leaves,
;; tree-reduce, global-norm, clip-by-global-norm, the optimisers (adamw-step among
;; them) and cosine-schedule, eagerly and jitted; and their errors.
(define (show x) (write x) (newline))
(define (try thunk) (display (guard (e (#t (condition/report-string e))) (thunk))) (newline))
(define params
  (list (cons 'w (tensor '((1.0 -2.0) (0.5 3.0))))
        (cons 'b (tensor '(0.25 -0.75)))
        (cons 'blocks (list (list (cons 'g 2.0)) (vector (tensor '(1.0)) 4.0)))))
(define grads
  (list (cons 'w (tensor '((0.1 0.2) (-0.3 0.4))))
        (cons 'b (tensor '(0.5 -0.5)))
        (cons 'blocks (list (list (cons 'g -1.0)) (vector (tensor '(2.0)) 0.25)))))

;; ---- tree-map, tree-leaves, tree-reduce, tree-ref ----
(show (tree-map (lambda (p g) (- p g)) params grads))
(show (tree-leaves params))
(show (tree-leaves '()))
(show (tree-leaves 3.0))
(show (tree-reduce (lambda (acc x) (+ acc (if (number? x) 1 (tensor-size x)))) 0 params))
(show (tree-reduce cons '() '((a . 1) (b 2 3))))
(show (tree-ref params 'w))
(show (tree-ref params 'blocks 0 'g))
(show (tree-ref params 'blocks 1 0))
(show (tree-ref params))
(show (tree-ref '(1 (2 3)) 1 0))

;; ---- global-norm and clip-by-global-norm ----
;; sqrt(1+4+0.25+9 + 0.0625+0.5625 + 4 + 1 + 16) = sqrt(35.875)
(show (global-norm params))
(show (sqrt 35.875))
(show (global-norm '()))
(show (global-norm '((a . 3.0) (b . -4.0))))
;; norm 5 > 1: scaled by 1/5; norm 5 <= 10: unchanged
(show (clip-by-global-norm '((a . 3.0) (b . -4.0)) 1.0))
(show (clip-by-global-norm '((a . 3.0) (b . -4.0)) 10))
(show (global-norm (clip-by-global-norm params 2.0)))
(show (equal? (clip-by-global-norm params 100.0) params))
;; traced: the same bits, with the norm and the scale computed in the kernel
(show (equal? ((jit global-norm) params) (global-norm params)))
(show (equal? ((jit (lambda (p) (clip-by-global-norm p 2.0))) params) (clip-by-global-norm params 2.0)))
(show (equal? ((jit (lambda (p m) (clip-by-global-norm p m))) params 2.0) (clip-by-global-norm params 2.0)))
(show (equal? ((jit (lambda (p) (clip-by-global-norm p 100.0))) params) params))
;; the gradient of the norm is p / norm (0.6 and -0.8, to rounding)
(show ((grad global-norm) '((a . 3.0) (b . -4.0))))

;; ---- optimisers keep the names ----
(show (sgd-step params grads 0.1))
(show (car (momentum-step (momentum-init params) params grads 0.1)))
(show (adam-init '((a . 1.0) (b . #(2.0)))))
(define a1 (adam-step (adam-init params) params grads 0.01))
(show (car a1))
(show (tree-ref (cdr a1) 1 'blocks 1 0))

;; adamw-step: adam-step's update after p*(1 - lr*wd), wd 0.01 by default.
;; One step from zeros on a number: m = 0.1g, v = 0.001g^2, and the Adam part is
;; -lr * g/|g| (to EPS); so p = 2*(1 - 0.1*0.01) - 0.1 = 1.898 (nearly).
(show (adamw-step (adam-init 2.0) 2.0 0.5 0.1))
(show (car (adamw-step (adam-init 2.0) 2.0 0.5 0.1 0.9 0.999 1e-8 0.0)))
(show (car (adam-step (adam-init 2.0) 2.0 0.5 0.1)))
(show (car (adamw-step (adam-init 2.0) 2.0 0.5 0.1 0.9 0.999 1e-8 0.5)))
(define w1 (adamw-step (adam-init params) params grads 0.01))
(show (car w1))
(show (car (adamw-step (cdr w1) (car w1) grads 0.01 0.8 0.99 1e-6 0.1)))
;; a WD per leaf (PyTorch's parameter groups): w decays as with 0.1, the rest not at all
(define per-leaf '((w . 0.1) (b . 0.0) (blocks ((g . 0.0)) #(0.0 0.0))))
(define wp (car (adamw-step (adam-init params) params grads 0.01 0.9 0.999 1e-8 per-leaf)))
(show (list (equal? (tree-ref wp 'w) (tree-ref (car (adamw-step (adam-init params) params grads 0.01 0.9 0.999 1e-8 0.1)) 'w))
            (equal? (cdr wp) (cdr (car (adam-step (adam-init params) params grads 0.01))))))

;; ten jitted steps of each optimiser on a named model equal ten eager ones, bit for bit
(define x (tensor '((1.0 2.0) (-1.0 0.5) (0.0 3.0))))
(define y (tensor '((1.0 0.0) (0.0 1.0) (2.0 -1.0))))
(define model (list (cons 'w (tensor '((0.5 -0.25) (0.1 0.3)))) (cons 'b (tensor '(0.0 0.1)))))
(define (loss p) (tensor-mean (square (- (+ (matmul x (tree-ref p 'w)) (tree-ref p 'b)) y))))
(define (make-step update)
  (lambda (state p) (let ((g (cadr ((grad loss) p)))) (update state p g))))
(define (run step state p n)
  (if (= n 0) (cons p state) (let ((r (step state p))) (run step (cdr r) (car r) (- n 1)))))
(for-each
 (lambda (name update init)
   (let ((step (make-step update)))
     (let ((eager (run step (init model) model 10))
           (jitted (run (jit step) (init model) model 10)))
       (write (list name (equal? eager jitted) (map car (car eager)) (loss (car eager)))) (newline))))
 '(sgd momentum adam adamw adamw-clipped)
 (list (lambda (s p g) (cons (sgd-step p g 0.1) s))
       (lambda (s p g) (momentum-step s p g 0.1))
       (lambda (s p g) (adam-step s p g 0.1))
       (lambda (s p g) (adamw-step s p g 0.1 0.9 0.999 1e-8 0.1))
       (lambda (s p g) (adamw-step s p (clip-by-global-norm g 0.5) 0.1)))
 (list (lambda (p) '()) momentum-init adam-init adam-init adam-init))

;; ---- cosine-schedule ----
;; BASE 1, 10 steps, 2 of warm-up: 0, 0.5, then 1 at step 2 down a half cosine to 0 at step 10
(define lr (cosine-schedule 1.0 10 2))
(show (map lr (iota 12)))
(show (map (cosine-schedule 0.5 4) '(0 1 2 3 4 5)))
(show (lr 3.5))
;; a traced step number: a jitted step takes it as an argument, the same bits
(show (equal? (map (jit lr) (map exact->inexact (iota 12))) (map lr (iota 12))))
(show (equal? (map (jit (cosine-schedule 0.5 4)) '(0.0 1.0 2.0 3.0 4.0 5.0)) (map (cosine-schedule 0.5 4) '(0 1 2 3 4 5))))
(define sched-step
  (jit (lambda (state p t)
         (let ((g (cadr ((grad loss) p))))
           (adamw-step state p g (lr t))))))
(show (equal? (car (sched-step (adam-init model) model 3.0))
              (car (adamw-step (adam-init model) model (cadr ((grad loss) model)) (lr 3)))))

;; ---- errors ----
(try (lambda () (tree-map + '((a . 1.0) (b . 2.0)) '((a . 1.0) (c . 2.0)))))
(try (lambda () (tree-map + '((a . 1.0) (b . 2.0)) '(1.0 2.0))))
(try (lambda () (tree-map + '((a . 1.0) 2.0))))
(try (lambda () (tree-map + '(2.0 (a . 1.0)))))
(try (lambda () (tree-map + '((a . 1.0) (a . 2.0)))))
(try (lambda () (tree-map + '(a . 1.0))))
(try (lambda () (sgd-step params (cdr grads) 0.1)))
(try (lambda () (adam-step (adam-init params) params '((w . 1.0) (b . 2.0) (c . 3.0)) 0.1)))
(try (lambda () (tree-leaves '(1.0 . 2.0))))
(try (lambda () (tree-ref params 'v)))
(try (lambda () (tree-ref params 'blocks 2)))
(try (lambda () (tree-ref params 0)))
(try (lambda () (tree-ref params 'w 0)))
(try (lambda () (tree-ref params 'w 'x)))
(try (lambda () (tree-ref params 'blocks 1 5)))
(try (lambda () (tree-ref params "w")))
(try (lambda () (tree-ref params -1)))
(try (lambda () (tree-ref '((a . 1.0) 2.0) 'a)))
(try (lambda () (clip-by-global-norm params 0.0)))
(try (lambda () (clip-by-global-norm params -1)))
(try (lambda () (clip-by-global-norm params +inf.0)))
(try (lambda () (global-norm '((a . 1.0) (b . "s")))))
(try (lambda () (adamw-step (adam-init 1.0) 1.0 1.0 0.1 0.9 0.999 1e-8 0.01 5)))
(try (lambda () (adamw-step (momentum-init 1.0) 1.0 1.0 0.1)))
(try (lambda () (adamw-step (adam-init params) params (cdr params) 0.1)))
(try (lambda () (adamw-step (adam-init params) params grads 0.1 0.9 0.999 1e-8 '((w . 0.1) (b . 0.0)))))
(try (lambda () ((jit (lambda (p g) (adamw-step (adam-init p) p g 0.1))) params (cdr grads))))
(try (lambda () (cosine-schedule 1.0 0)))
(try (lambda () (cosine-schedule 1.0 10 10)))
(try (lambda () (cosine-schedule 1.0 10 -1)))
(try (lambda () (cosine-schedule 1.0 10.0)))
(try (lambda () (cosine-schedule "a" 10)))
(try (lambda () (cosine-schedule 1.0 10 2 3)))
(try (lambda () (lr -1)))
(try (lambda () (lr "s")))
;; a tensor of step numbers gives a tensor of rates
(show (lr (tensor '(0.0 1.0 6.0 20.0))))

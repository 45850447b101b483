;; Gradients through scan and fori-loop (reverse mode keeps every step's carry),
;; checked against central finite differences; nesting with graph-grad and jit.
;; The RNN's loss and the SGD model are in parts/training.lisp (shared with kernels.lisp).
(include "parts/training.lisp")
(define (fd f x eps) (/ (- (f (+ x eps)) (f (- x eps))) (* 2 eps)))
(define (close? a b) (< (abs (- a b)) (* 1e-6 (+ 1.0 (abs b)))))

;; An Elman RNN (rnn-loss): h' = tanh(h U + x W), loss = sum of squares of every h.
(define u (tensor '((0.3 -0.2 0.1) (0.05 0.4 -0.3) (-0.1 0.2 0.25))))
(define w (tensor '((0.5 -0.5 0.2) (0.1 0.3 -0.4))))
(define xs (tensor '((1.0 0.0) (0.5 0.5) (-0.3 0.2) (0.0 1.0) (2.0 -1.0) (0.7 0.1))))
(define h0 (tensor '(0.1 -0.1 0.2)))
(define r (graph-grad rnn-loss u w h0 xs))
(display (car r)) (newline)
;; Each gradient entry against finite differences of the eager loss.
(define (entry-ok? which grad)
  (let loop ((i 0) (ok #t))
    (if (= i (tensor-size grad)) ok
        (let* ((t (list-ref (list u w h0 xs) which))
               (flat (tensor->list (reshape t (list (tensor-size t)))))
               (bump (lambda (d) (let ((l (list-copy flat)))
                                   (list-set! l i (+ (list-ref l i) d))
                                   (reshape (tensor l) (tensor-shape t)))))
               (f (lambda (d) (apply rnn-loss (let ((args (list u w h0 xs))) (list-set! args which (bump d)) args))))
               (num (/ (- (f 1e-6) (f -1e-6)) 2e-6))
               (g (list-ref (tensor->list (reshape grad (list (tensor-size grad)))) i)))
          (loop (+ i 1) (and ok (close? g num)))))))
(display (map (lambda (k) (entry-ok? k (list-ref (cdr r) k))) '(0 1 2 3))) (newline)
;; graph-grad's loss is the eager loss's bits; jit's gradient is graph-grad's.
(display (equal? (car r) (rnn-loss u w h0 xs))) (newline)
(display (equal? r ((jit (lambda (u w h0 xs) (graph-grad rnn-loss u w h0 xs))) u w h0 xs))) (newline)

;; fori-loop is differentiable too (a static trip count): d/dx of x^(2^3) * x^...
(define (p x) (fori-loop 3 (lambda (i c) (* c c x (+ 1.0 (* 0.1 i)))) x))
(define gp (graph-grad p 1.05))
(display gp) (newline)
(display (close? (cadr gp) (fd p 1.05 1e-6))) (newline)

;; A fori-loop of SGD steps whose body calls graph-grad, jitted: the 8x16 -> 8
;; least-squares model, 50 steps, equal to the eager loop's bits.
(define eager (train w0 b0 x y))
(display (list (lin-loss w0 b0 x y) (lin-loss (car eager) (cadr eager) x y))) (newline)
(display (equal? eager ((jit train) w0 b0 x y))) (newline)
(display (equal? eager (graph-eval train w0 b0 x y))) (newline)

;; A scan inside grad inside jit.
(define step (jit (lambda (u w h0 xs) ((grad rnn-loss '(0 1)) u w h0 xs))))
(display (equal? (step u w h0 xs) (list (car r) (cadr r) (caddr r)))) (newline)
;; Second order: the derivative of a scan's gradient.
(define (q a) (car (scan (lambda (c x) (cons (* c (tensor-tanh (* a x))) 0.0)) 1.0 (tensor '(0.5 1.0 1.5)))))
(define (dq a) (cadr (graph-grad q a)))
(display (close? (cadr (graph-grad dq 0.7)) (fd dq 0.7 1e-5))) (newline)

;; Under graph-grad the forward loop runs once: the loop autodiff records to keep every
;; step's carry gives the value too (optimise.cpp), so the gradient graph holds one
;; forward and one backward loop node.
(define (loop-nodes ir) (length (filter (lambda (n) (eq? (cadr n) 'loop)) (car ir))))
(display (loop-nodes (graph-ir 'grad rnn-loss u w h0 xs))) (newline)

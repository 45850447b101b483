;;; whole_step_trace.lisp — microseconds to trace and optimise the main benchmark's
;;; whole SGD step (graph-grad inside the step: forward, backward and update in one
;;; graph), as graph-node-count does it, against graph-grad alone (trace, optimise
;;; and interpret the loss's gradient). Timings, not golden output.
(define (val i off) (/ (- (modulo (+ (* 7 i) off) 17) 8) 8.0))
(define (matrix rows cols off)
  (tensor (map (lambda (i) (map (lambda (j) (val (+ (* i cols) j) off)) (iota cols))) (iota rows))))
(define (loss x w b t nn)
  (let ((d (tensor-sub (relu (tensor-add (matmul x w) b)) t)))
    (/ (tensor-sum (tensor-mul d d)) nn)))
(define (sgd-step x w b t nn)
  (let ((r (graph-grad loss x w b t nn)))
    (list (tensor-sub w (tensor-mul 0.01 (caddr r))) (- b (* 0.01 (cadddr r))) (car r))))
(define x (matrix 8 16 0)) (define t (matrix 8 8 5)) (define w (matrix 16 8 3))
(define (rep n f) (let loop ((i 0)) (when (< i n) (f) (loop (+ i 1)))))
(define (us n f) (let ((t0 (now-micros))) (rep n f) (/ (- (now-micros) t0) (exact->inexact n))))
(rep 2000 (lambda () (graph-node-count sgd-step x w 0.5 t 64.0)))
(display (format "whole step: trace+optimise ~a us (~a nodes); graph-grad of the loss ~a us"
                 (us 10000 (lambda () (graph-node-count sgd-step x w 0.5 t 64.0)))
                 (graph-node-count sgd-step x w 0.5 t 64.0)
                 (us 10000 (lambda () (graph-grad loss x w 0.5 t 64.0)))))
(newline)

;; The models that kernels.lisp and grad.lisp both differentiate through loops,
;; included by them (no .out file, so the runner does not run it alone).

;; An Elman RNN: h' = tanh(h U + x W), loss = sum of squares of every h plus the
;; final h's sum.
(define (rnn-loss u w h0 xs)
  (let ((r (scan (lambda (h x)
                   (let ((h2 (tensor-tanh (tensor-add (matmul h u) (matmul x w)))))
                     (cons h2 h2)))
                 h0 xs)))
    (+ (tensor-sum (tensor-mul (cdr r) (cdr r))) (tensor-sum (car r)))))

;; 50 SGD steps (a fori-loop whose body calls graph-grad) of an 8x16 -> 8
;; least-squares model: (train w0 b0 x y) gives the final (w b).
(define (lin-loss w b x y)
  (let ((d (tensor-sub (tensor-add (matmul x w) b) y))) (tensor-mean (tensor-mul d d))))
(define (train w b x y)
  (fori-loop 50
             (lambda (i p)
               (let ((g (graph-grad lin-loss (car p) (cadr p) x y)))
                 (list (tensor-sub (car p) (tensor-mul 0.1 (cadr g)))
                       (tensor-sub (cadr p) (tensor-mul 0.1 (caddr g))))))
             (list w b)))
(define ks (random-split 7 4))
(define x (tensor-randn '(8 16) (list-ref ks 0)))
(define y (tensor-randn '(8 8) (list-ref ks 1)))
(define w0 (tensor-mul 0.1 (tensor-randn '(16 8) (list-ref ks 2))))
(define b0 (tensor-mul 0.0 (tensor-randn '(8) (list-ref ks 3))))

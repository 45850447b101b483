;; conv2d, conv1d, max-pool2d, avg-pool2d (SPEC §14). Each output element is one
;; fixed sequence of operations (docs/tensors.md): a convolution sums
;; 0.0 + w*x with c ascending, then kh, then kw; avg-pool sums its window
;; row-major from 0.0 and divides once; max-pool keeps the first maximal entry.
;; Eager, graph-eval and compiled results agree bit for bit.
(define (paths f . args)
  (let ((e (apply f args)))
    (list (equal? e (apply graph-eval f args)) (equal? e (apply (jit f) args)))))
(define img (reshape (arange 16) '(1 1 4 4)))
(write (tensor->list (conv2d img (ones '(1 1 3 3))))) (newline)
(write (tensor->list (conv2d img (ones '(1 1 3 3)) 1 1))) (newline)
(write (tensor->list (conv2d img (ones '(2 1 2 2)) 2))) (newline)
(write (tensor->list (conv2d img (ones '(1 1 2 2)) 1 0 2))) (newline)
;; channels: c ascending, so a 2-channel weight sees channel 0 then 1
(write (tensor->list (conv2d (concat (list img (tensor-mul img 10)) 1) (reshape (tensor '(1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1)) '(1 2 3 3))))) (newline)
(write (tensor->list (conv1d (reshape (arange 6) '(1 1 6)) (tensor '(((1 -1)))) 2 1))) (newline)
(write (tensor->list (max-pool2d img 2))) (newline)
(write (tensor->list (max-pool2d img 3 1 1))) (newline)
(write (tensor->list (avg-pool2d img 2))) (newline)
(write (tensor->list (avg-pool2d img 3 2 1))) (newline)
(write (tensor-shape (conv2d (zeros '(2 3 9 7)) (zeros '(4 3 3 2)) '(2 1) '(1 2) '(2 1)))) (newline)
(write (tensor-shape (max-pool2d (zeros '(1 1 7 5)) '(3 2) '(2 1)))) (newline)
;; a bias broadcasts
(write (tensor->list (+ (conv2d img (ones '(2 1 4 4))) (reshape (tensor '(0.5 -1)) '(1 2 1 1))))) (newline)
;; max: the first maximal entry gets the gradient; NaN and infinities pass
(define ties (tensor '((((1 3 3 0) (3 2 1 3) (0 0 0 0) (0 0 0 0))))))
(write (tensor->list (cadr (graph-grad (lambda (x) (tensor-sum (max-pool2d x 2))) ties)))) (newline)
(define odd (tensor '((((1 +nan.0 3) (+inf.0 2 -inf.0) (-inf.0 -inf.0 0))))))
(write (tensor->list (max-pool2d odd 2 1))) (newline)
(write (paths (lambda (x) (max-pool2d x 2 1)) odd)) (newline)
(write (tensor->list (avg-pool2d odd 2 1))) (newline)
;; every path, random sizes and settings
(define x (tensor-randn '(2 3 7 6) 1))
(define w (tensor-randn '(4 3 3 2) 2))
(write (list (paths conv2d x w)
             (paths (lambda (x w) (conv2d x w '(2 1) '(1 2) '(2 1))) x w)
             (paths (lambda (x w) (conv1d x w 2 1 2)) (tensor-randn '(2 3 9) 3) (tensor-randn '(5 3 3) 4))
             (paths (lambda (x) (max-pool2d x 3 2 1)) x)
             (paths (lambda (x) (avg-pool2d x '(3 2) 1 '(1 1))) x)))
(newline)
;; a small CNN's gradients and its gradient's gradient, on every path
(define (cnn x w) (tensor-sum (square (max-pool2d (relu (conv2d x w 1 1)) 2))))
(write (paths (grad cnn) x (tensor-randn '(4 3 3 3) 5))) (newline)
(define (cnn2 x w) (tensor-sum (tensor-mul (cadr ((grad cnn) x w)) x)))
(write (paths (grad cnn2) x (tensor-randn '(4 3 3 3) 5))) (newline)
;; the traced composite: the planes get a padding slot, one take gathers the
;; windows, a batched matmul sums them
(write (graph-ir (lambda (x w) (conv2d x w 1 1)) (zeros '(1 1 2 2)) (zeros '(1 1 2 2)))) (newline)
(write (graph-ir (lambda (x) (max-pool2d x 2)) (zeros '(1 1 2 2)))) (newline)

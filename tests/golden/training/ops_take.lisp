;; tensor-take (SPEC §13): entries along an axis (0 by default) at INDICES, a list,
;; vector, number or tensor of integers; the result has the indices' shape in
;; place of that axis (NumPy's take). Its gradient scatter-adds: an entry taken
;; twice gets both gradients. Eager, graph-eval, compiled and jit agree bit for bit,
;; and a bad index is the same error on every path (in a kernel it is checked as
;; the kernel runs).
(include "parts/paths.lisp")

(define m (tensor '((0.0 1.0 2.0 3.0) (10.0 11.0 12.0 13.0) (20.0 21.0 22.0 23.0))))
(show (tensor-take m '(2 0 2)))
(show (tensor-take m #(3 1) 1))
(show (tensor-take m (tensor '(1.0 1.0)) -1))
(show (tensor-take m 1))                               ; a number: the axis goes
(show (tensor-take m (tensor 2.0) 1))
(show (tensor-take m (tensor '((0 1) (2 0)))))         ; 2x2 indices: a 2x2x4 result
(show (tensor-take (tensor '(5.0 6.0 7.0)) '(2 2 0 1)))
(show (tensor-take m '(1.0 -0.0)))                     ; integral floats are integers

(write (paths (lambda (x) (tensor-take x '(2 0 2))) m)) (newline)
(write (paths (lambda (x i) (tensor-take x i 1)) m (tensor '((3.0 0.0) (0.0 3.0))))) (newline)
(write (paths (lambda (x i) (tensor-take x i)) m 2.0)) (newline)
;; Indices computed inside the kernel: the largest column of each row.
(write (paths (lambda (x) (tensor-take (tensor-take x (tensor-argmax x 1) 1) '(0 1 2) 0)) m)) (newline)

;; The gradient: repeated indices add up, untaken entries get 0, the indices none.
(define w (tensor '((1.0 2.0) (3.0 4.0) (5.0 6.0))))
(define (loss x i) (tensor-sum (* w (tensor-take x i 1))))
(define i (tensor '(3.0 3.0)))
(write (graph-grad loss m i)) (newline)
(write (grad-paths loss m i)) (newline)
(define (loss2 x) (tensor-sum (square (tensor-take x (tensor '((0 2) (2 2))) 0))))
(write (graph-grad loss2 m)) (newline)
(write (grad-paths loss2 m)) (newline)
(write (graph-ir 'grad loss2 m)) (newline)
;; Second derivative: the scatter-add's own gradient is a take.
(define (g1 x) (tensor-sum (square (cadr (graph-grad loss2 x)))))
(write (graph-grad g1 m)) (newline)
(write (grad-paths g1 m)) (newline)

;; Summation order: each entry's gradient is 0.0 plus the gradients of the places
;; that took it, in index order (docs/tensors.md), on every path.
(define wr (tensor-randn '(6) 11))
(define (wr-ref k) (tensor-ref wr k))
(define (take-loss x) (tensor-sum (* wr (tensor-take x '(0 2 0 0 1 0)))))
(define by-hand (list (+ (+ (+ (+ 0.0 (wr-ref 0)) (wr-ref 2)) (wr-ref 3)) (wr-ref 5))
                      (+ 0.0 (wr-ref 4)) (+ 0.0 (wr-ref 1))))
(define v3 (tensor '(1.0 2.0 3.0)))
(write (equal? (tensor->list (cadr (graph-grad take-loss v3))) by-hand)) (newline)
(write (equal? (tensor->list (cadr ((graph-compile-grad take-loss v3) v3))) by-hand)) (newline)

;; Errors, eager and traced alike; a bad index given to a kernel as an argument
;; is found while the kernel runs, with the same message.
(define (err thunk) (guard (e (#t (display (error-object-message e)) (newline))) (thunk)))
(err (lambda () (tensor-take m '(0 3))))
(err (lambda () (tensor-take m '(0 4) 1)))
(err (lambda () (tensor-take m '(-1))))
(err (lambda () (tensor-take m '(1.5))))
(err (lambda () (tensor-take m (tensor '(0.0 +nan.0)))))
(err (lambda () (tensor-take m 1e300)))
(err (lambda () (graph-eval (lambda (x) (tensor-take x '(0 3))) m)))
(define pick (lambda (x i) (tensor-take x i 1)))
(define k (graph-compile pick m (tensor '(0.0 1.0))))
(err (lambda () (k m (tensor '(1.0 4.0)))))
(err (lambda () (k m (tensor '(2.5 9.0)))))
(err (lambda () (graph-eval pick m (tensor '(1.0 -2.0)))))
(err (lambda () ((jit pick) m (tensor '(+inf.0 0.0)))))
(define kg (graph-compile-grad loss m i))
(err (lambda () (kg m (tensor '(0.0 7.0)))))
(err (lambda () (graph-grad loss m (tensor '(0.0 7.0)))))
(write (kg m i)) (newline)                             ; the kernel still works after an error
(err (lambda () (tensor-take 3.0 '(0))))
(err (lambda () (tensor-take m "0")))
(err (lambda () (tensor-take m '())))
(err (lambda () (tensor-take m '(0 a))))
(err (lambda () (tensor-take m #(0 "1"))))
(err (lambda () (tensor-take m '(0) 2)))
(err (lambda () (tensor-take m '(0) 'x)))
(err (lambda () (tensor-take (tensor 1.0) '(0))))
(err (lambda () (tensor-take (ones '(1 1 1 1 1 1 1 1)) (ones '(1 1)))))
(err (lambda () (graph-eval (lambda (x) (tensor-take x '(0) 2)) m)))
(err (lambda () (graph-eval (lambda (x) (tensor-take x "0")) m)))
(err (lambda () (graph-eval (lambda (x) (tensor-take (ones '(1 1 1 1 1 1 1 1)) x)) (ones '(1 1)))))
(err (lambda () (tensor-take m '((0 1)))))

;; mse, tensor-clip, tensor-where and stop-gradient (SPEC §13 and docs/graph.md):
;; values at the edges, gradients, eager = graph-eval = compiled = jit bit for bit,
;; and errors, eager and traced alike.
(include "parts/paths.lisp")

;; mse: the mean of the squared differences; A and B of one shape.
(define a (tensor '((1.0 2.0) (3.0 4.0))))
(define b (tensor '((1.5 2.0) (2.0 6.0))))
(write (mse a b)) (newline)
(write (mse 1.0 4.0)) (newline)
(write (mse (tensor 2.0) 1.0)) (newline)
(write (graph-grad mse a b)) (newline)
(write (grad-paths mse a b)) (newline)
(write (paths mse a b)) (newline)

;; tensor-clip: min(max(T, LO), HI) as PyTorch's clamp: the gradient reaches T where
;; LO <= T <= HI (bounds included), the bounds elsewhere; NaN stays NaN.
(define t (tensor '(-2.0 -1.0 0.0 0.5 1.0 3.0 +nan.0 -inf.0 +inf.0)))
(show (tensor-clip t -1.0 1.0))
(show (tensor-clip t 0.0 (tensor '(1 1 1 1 1 1 1 1 2))))
(write (tensor-clip 5.0 0.0 1.0)) (newline)
(show (tensor-clip (tensor '((0.5) (2.0))) (tensor '(0.0 1.0)) 1.5))   ; broadcasts
(define s (tensor '(-2.0 -1.0 0.0 0.5 1.0 3.0)))
(define (clip-loss x lo hi) (tensor-sum (* (tensor '(1.0 2.0 3.0 4.0 5.0 6.0)) (tensor-clip x lo hi))))
(write (graph-grad clip-loss s -1.0 1.0)) (newline)
(write (graph-grad clip-loss s (tensor '(0.0 0.0 0.0 0.0 0.0 0.0)) 1.0)) (newline)
(write (grad-paths clip-loss s -1.0 1.0)) (newline)
(write (paths tensor-clip t -1.0 1.0)) (newline)
(write (graph-ir tensor-clip s -1.0 1.0)) (newline)

;; tensor-where: A where C is not 0 (NaN counts as not 0), else B, broadcast.
(show (tensor-where (tensor '(1.0 0.0 -0.0 +nan.0 2.0)) (tensor '(1.0 2.0 3.0 4.0 5.0)) -1.0))
(show (tensor-where (tensor '((1.0) (0.0))) (tensor '(1.0 2.0)) (tensor '(10.0 20.0))))
(write (tensor-where 0.0 1.0 2.0)) (newline)
(define (where-loss c x y) (tensor-sum (* (tensor '(1.0 2.0 3.0)) (tensor-where c (square x) y))))
(define c (tensor '(1.0 0.0 1.0)))
(write (graph-grad where-loss c (tensor '(1.0 2.0 3.0)) (tensor '(4.0 5.0 6.0)))) (newline)
(write (grad-paths where-loss c (tensor '(1.0 2.0 3.0)) (tensor '(4.0 5.0 6.0)))) (newline)
(write (paths tensor-where c (tensor '(1.0 2.0 3.0)) 0.0)) (newline)
;; A condition computed in the graph (not only an `if`'s comparison).
(write (paths (lambda (x) (tensor-where (relu x) x (- x))) (tensor '(-1.0 2.0 -3.0)))) (newline)

;; stop-gradient: the value itself; nothing flows back through it, and the
;; optimiser removes it once the gradient graph is built.
(write (stop-gradient 2.5)) (newline)
(show (stop-gradient a))
(write (graph-grad (lambda (x) (* x (stop-gradient x))) 3.0)) (newline)
(write (graph-grad (lambda (x) (tensor-sum (stop-gradient (* x x)))) a)) (newline)
(write (graph-ir (lambda (x) (* x (stop-gradient x))) 3.0)) (newline)
(write (paths (lambda (x) (+ x (stop-gradient (exp x)))) a)) (newline)
(write (grad-paths (lambda (x) (tensor-sum (* x (stop-gradient (exp x))))) a)) (newline)

(define (err thunk) (guard (e (#t (display (error-object-message e)) (newline))) (thunk)))
(err (lambda () (mse a (ones '(2 3)))))
(err (lambda () (mse a 1.0)))
(err (lambda () (mse a "b")))
(err (lambda () (graph-eval mse a (ones '(2 1)))))
(err (lambda () (tensor-clip a (ones '(3)) 1.0)))
(err (lambda () (tensor-clip a 0.0 (ones '(3)))))
(err (lambda () (tensor-clip a "lo" 1.0)))
(err (lambda () (graph-eval (lambda (x) (tensor-clip x (ones '(3)) 1.0)) a)))
(err (lambda () (graph-eval (lambda (x) (tensor-clip x 0.0 (ones '(3)))) a)))
(err (lambda () (graph-eval (lambda (x) (tensor-clip x 'lo 1.0)) a)))
(err (lambda () (tensor-where (ones '(3)) a 1.0)))
(err (lambda () (tensor-where 1.0 a (ones '(3)))))
(err (lambda () (tensor-where 1.0 a #t)))
(err (lambda () (graph-eval (lambda (x) (tensor-where (ones '(3)) x 1.0)) a)))
(err (lambda () (graph-eval (lambda (x) (tensor-where 1.0 x (ones '(3)))) a)))
(err (lambda () (stop-gradient "x")))

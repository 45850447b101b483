;; tensor-eq, tensor-lt, tensor-le, tensor-gt, tensor-ge: 1.0 / 0.0 with NumPy
;; broadcasting, numbers in giving a number out, NaN comparing false (equal to
;; nothing); the same bits eagerly, in graph-eval and in a compiled kernel, and
;; no gradient through them.
(define a (tensor '((1.0 2.0 3.0) (-0.0 +nan.0 +inf.0))))
(define b (tensor '(1.0 3.0 0.0)))
(define (all-five x y) (list (tensor-eq x y) (tensor-lt x y) (tensor-le x y) (tensor-gt x y) (tensor-ge x y)))
(for-each (lambda (t) (write (tensor->list t)) (newline)) (all-five a b))
(write (all-five 2 2.0)) (newline)
(write (tensor->list (tensor-eq 0.0 (tensor '(-0.0 0.0 1e-300))))) (newline)
;; eager = graph-eval = jit
(write (equal? (all-five a b) (graph-eval all-five a b))) (newline)
(write (equal? (all-five a b) ((jit all-five) a b))) (newline)
;; accuracy: the mean of an equality mask, eagerly and under jit
(define predictions (tensor '(3.0 1.0 4.0 1.0 5.0 9.0 2.0 6.0)))
(define labels (tensor '(3.0 1.0 4.0 0.0 5.0 9.0 0.0 6.0)))
(define (accuracy p y) (tensor-mean (tensor-eq p y)))
(write (accuracy predictions labels)) (newline)
(write ((jit accuracy) predictions labels)) (newline)
(write (graph-ir tensor-lt (tensor '(1.0 2.0)) 1.5)) (newline)
;; no gradient flows through a comparison: only the multiplied x's does
(define (masked x) (tensor-sum (tensor-mul x (tensor-gt x 0.0))))
(write (graph-grad masked (tensor '(-1.0 0.0 2.0)))) (newline)
(write (equal? (graph-grad masked (tensor '(-1.0 0.0 2.0)))
               ((graph-compile-grad masked (tensor '(-1.0 0.0 2.0))) (tensor '(-1.0 0.0 2.0)))))
(newline)
;; a nest of element-wise calls runs fused (one pass); the same bits as one call at a time
(define a1 (tensor-add a 1.0))
(write (equal? (tensor-ge (tensor-add a 1.0) b) (tensor-ge a1 b))) (newline)
(define sum-ab (tensor-add a b))
(write (equal? (tensor-gelu (tensor-mul (tensor-add a b) (tensor-lt a 2.5))) (tensor-gelu (tensor-mul sum-ab (tensor-lt a 2.5)))))
(newline)
;; errors name the op and both shapes, eagerly and traced
(guard (e (#t (display (condition/report-string e)) (newline))) (tensor-eq (ones '(2 3)) (ones '(4 3))))
(guard (e (#t (display (condition/report-string e)) (newline))) ((jit tensor-ge) (ones '(2 3)) (ones '(4 3))))
(tensor-lt "x" 1)

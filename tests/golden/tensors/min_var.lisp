;; tensor-min (as tensor-max: the first minimal element, NaN propagating, its
;; gradient to that element) and tensor-var (population variance, mean of squared
;; deviations from the mean), whole and along an axis, eager = graph-eval = jit.
(define x (tensor '((3.0 -1.0 -1.0 2.0) (0.5 0.25 4.0 0.25) (-2.0 7.0 -2.0 1.0))))
(write (tensor-min x)) (newline)
(write (tensor->list (tensor-min x 1))) (newline)
(write (tensor->list (tensor-min x 0 #t))) (newline)
(write (tensor-min 5)) (newline)
(write (tensor-min (tensor '(1.0 +nan.0 -3.0)))) (newline)
(write (tensor-var x)) (newline)
(write (tensor->list (tensor-var x 1))) (newline)
(write (tensor->list (tensor-var x 0 #t))) (newline)
(write (tensor-var (tensor '(1.0 2.0 3.0 4.0)))) (newline)
(write (tensor-var 5)) (newline)
(define (stats x) (list (tensor-min x) (tensor-min x 1) (tensor-min x 0 #t) (tensor-var x) (tensor-var x 1)
                        (tensor-var x 0 #t)))
(write (equal? (stats x) (graph-eval stats x))) (newline)
(write (equal? (stats x) ((jit stats) x))) (newline)
;; gradients: min to the first minimal element of each line (ties: the first);
;; var's 2 (x - mean) / n
(define (min-loss x) (tensor-sum (tensor-mul (tensor '(1.0 2.0 3.0)) (tensor-min x 1))))
(write (tensor->list (cadr (graph-grad min-loss x)))) (newline)
(write (tensor->list (cadr (graph-grad (lambda (x) (tensor-min x)) x)))) (newline)
(define (var-loss x) (tensor-sum (tensor-var x 0)))
(write (tensor->list (cadr (graph-grad var-loss x)))) (newline)
(write (equal? (graph-grad var-loss x) ((graph-compile-grad var-loss x) x))) (newline)
;; finite differences of the whole variance at one element
(define (bump t d) (tensor-add t (tensor-mul d (tensor '((0.0 0.0 0.0 0.0) (0.0 1.0 0.0 0.0) (0.0 0.0 0.0 0.0))))))
(write (list (tensor-ref (cadr (graph-grad tensor-var x)) 1 1)
             (/ (- (tensor-var (bump x 1e-6)) (tensor-var (bump x -1e-6))) 2e-6)))
(newline)
;; errors name the op
(guard (e (#t (display (condition/report-string e)) (newline))) (tensor-min x 2))
(guard (e (#t (display (condition/report-string e)) (newline))) (graph-eval (lambda (x) (tensor-var x 5)) x))
(tensor-var "x")

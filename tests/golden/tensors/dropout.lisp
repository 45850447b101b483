;; (dropout T RATE KEY): each element kept with probability 1-RATE (where the
;; uniform draw of KEY at its index is >= RATE) and scaled by 1/(1-RATE), else 0;
;; RATE 0 is T itself. Eager, graph-eval and jit agree bit for bit, the key may be
;; traced (each step its own mask), and the gradient is the same mask and scale.
(define x (tensor-add 1.0 (arange 10)))
(write (tensor->list (dropout x 0.5 3))) (newline)
(write (tensor->list (* x (tensor-ge (tensor-rand '(10) 3) 0.5) 2.0))) (newline)
(write (eq? (dropout x 0 3) x)) (newline)
(write (dropout 4.0 0.25 1)) (newline)
;; the fraction kept over many elements
(write (tensor-mean (tensor-gt (dropout (ones '(100000)) 0.1 8) 0.0))) (newline)
(define (step x key) (dropout x 0.3 key))
(write (equal? (step x 5) (graph-eval step x 5))) (newline)
(write (equal? (step x 5) ((jit step) x 5))) (newline)
(write (equal? ((jit step) x 5) ((jit step) x 6))) (newline)
;; a traced rate
(define (step-rate x rate key) (dropout x rate key))
(write (equal? (step-rate x 0.3 5) ((jit step-rate) x 0.3 5))) (newline)
(write (equal? x ((jit step-rate) x 0 5))) (newline)
;; gradient: the mask times 1/(1-RATE), compiled or interpreted
(define (loss x key) (tensor-sum (tensor-mul x (dropout x 0.5 key))))
(define g (graph-grad loss x 3))
(write (tensor->list (cadr g))) (newline)
(write (equal? g ((graph-compile-grad loss x 3) x 3))) (newline)
;; a training step that splits its key and takes grad through dropout: jit = eager
(define (dloss w k) (tensor-sum (dropout (tensor-gelu w) 0.5 k)))
(define (train-step w key)
  (let* ((ks (random-split key 2)) (g (cadr ((grad dloss) w (car ks)))))
    (tensor-sub w (tensor-mul 0.1 g))))
(define w0 (tensor '(1.0 2.0 -1.0 0.5 0.25 -2.0)))
(write (tensor->list (train-step w0 3))) (newline)
(write (equal? (train-step w0 3) ((jit train-step) w0 3))) (newline)
(define (report thunk) (guard (e (#t (display (condition/report-string e)) (newline))) (thunk)))
(report (lambda () (dropout x 1 3)))
(report (lambda () (dropout x -0.1 3)))
(report (lambda () ((jit (lambda (x) (dropout x 1.5 3))) x)))
(report (lambda () (dropout x 0.5 0.5)))
(report (lambda () ((jit (lambda (x k) (dropout x 0.5 k))) x 0.5)))
(report (lambda () (dropout x "a" 1)))
(dropout "x" 0.5 1)

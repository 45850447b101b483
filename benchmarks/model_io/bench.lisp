; bench.lisp — save-model and load-model of a 100 MB model (run.sh runs it beside
; torch_bench.py). The model: an association list of three 2048x2048 matrices and
; a 512000-vector, 13 094 912 float64s = 104 759 296 bytes.
;   kiln bench.lisp DIR RUNS   prints "save MS" and "load MS" once per run
(define dir (cadr (command-line)))
(define runs (string->number (caddr (command-line))))
(define path (string-append dir "/bench.kiln"))
(define model
  (list (cons 'w1 (tensor-randn '(2048 2048) 1)) (cons 'w2 (tensor-randn '(2048 2048) 2))
        (cons 'w3 (tensor-randn '(2048 2048) 3)) (cons 'b (tensor-randn '(512000) 4))))
(define (ms thunk)
  (let ((t0 (current-jiffy)))
    (thunk)
    (/ (- (current-jiffy) t0) (/ (jiffies-per-second) 1000.0))))
(let loop ((i 0))
  (when (< i runs)
    (display "save ") (display (ms (lambda () (save-model path model)))) (newline)
    (let* ((back #f) (t (ms (lambda () (set! back (load-model path))))))
      (unless (equal? back model) (error "bench: the model did not load back equal"))
      (display "load ") (display t) (newline))
    (loop (+ i 1))))


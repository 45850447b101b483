;; Off a terminal (the test runner's stderr is a pipe) with-progress draws nothing:
;; this test's output holds only what it displays itself.
(display (list (terminal-port? (current-error-port)) (terminal-width (current-error-port))))
(newline)
(display (list (terminal-port? (open-output-string)) (terminal-width (open-input-string "x"))))
(newline)
;; It returns PROC's result; tick takes no status, a number or a string; ticks past
;; TOTAL are allowed.
(define ticks 0)
(display (with-progress 3 "train"
           (lambda (tick)
             (tick) (tick 0.25) (tick "epoch 3") (tick 7) (tick)
             (set! ticks 5)
             'finished)))
(newline)
(display ticks) (newline)
(display (with-progress 0 "" (lambda (tick) (list 1 2)))) (newline)
;; An error inside PROC reaches the caller unchanged.
(display (guard (e (#t (condition/report-string e)))
           (with-progress 10 "boom" (lambda (tick) (tick) (error "inside" 42)))))
(newline)
;; An escape out of PROC works too.
(display (call/cc (lambda (k) (with-progress 10 "escape" (lambda (tick) (tick) (k 'escaped))))))
(newline)

;; Runaway recursion, uncaught: a one-line `stack overflow` error with the ten
;; innermost frames and the top-level form, never a crash. (A small stack,
;; KILN_STACK_MB in overflow_backtrace.env, keeps it fast: the default one holds
;; millions of frames, each one filled before the overflow.)
(define (runaway n) (+ 1 (helper (+ n 1))))
(define (helper n) (* 2 (runaway n)))
(display "before") (newline)
(runaway 0)
(display "not reached") (newline)

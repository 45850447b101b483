;; An uncaught error: FILE:LINE:COL of the innermost list, then one `at` line per
;; active Lisp procedure call, innermost first (docs/cli.md). Builtins do not appear.
(define (inner x)
  (+ 1 (car x)))
(define (middle x)
  (* 2 (inner x)))
(define (outer x)
  (list (middle x)))
(display "start")
(newline)
(outer 5)
(display "not reached")

;; Loaded by load_include.lisp (no .out file, so the runner skips it).
(define (helper-double x) (* 2 x))
(define helper-loaded 'yes)
(display "helpers.lisp running") (newline)

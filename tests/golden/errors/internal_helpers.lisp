;; Helpers the prelude's macros expand to are reachable by name; bad arguments give
;; clear errors, never a crash (crash fuzzer findings F01 and F03, issue 11).
(define (err thunk) (guard (e (#t (display (error-object-message e)) (newline))) (thunk)))
(err (lambda () (%report-time 'x)))
(%report-time 1500)
(%report-time +inf.0)
(err (lambda () (%parameterize 1 '() (lambda () 1))))
(err (lambda () (%parameterize (list (make-parameter 1)) '() (lambda () 1))))
(err (lambda () (%parameterize '() '() 5)))
(define c (list 'and 'kiln))
(set-cdr! (cdr c) (cdr c))
(err (lambda () (%feature-match? c)))
(write (%feature-match? '(or (not kiln) r7rs))) (newline)
;; a builtin called from C++ with no arguments gets no argument array
(write (call-with-values vector list)) (newline)
(write (vector)) (newline)

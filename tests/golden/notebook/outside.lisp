;; Outside a notebook (docs/notebook.md): display-html and display-svg write nothing
;; and return the unspecified value; with-progress, plot and the progress helpers
;; behave as before; every error names the procedure and the argument.
(define (show thunk) (display (guard (e (#t (condition/report-string e))) (thunk))) (newline))
(display (list (eq? (display-html "<b>x</b>") (if #f #f)) (eq? (display-svg "<svg/>") (if #f #f))))
(newline)
(display (%rich-display-port? (current-output-port))) (newline)
(display (%rich-display-port? (current-error-port))) (newline)
(display (with-output-to-string (lambda () (display-html "<i>no</i>") (%display-progress "line" #t))))
(newline)
(display (with-progress 3 "quiet" (lambda (tick) (tick) (tick 0.5) (tick "s") 'done)))
(newline)
(show (lambda () (display-html 'b)))
(show (lambda () (display-svg 12)))
(show (lambda () (display-html)))
(show (lambda () (display-svg "a" "b")))
(show (lambda () (%rich-display-port? "stdout")))
(show (lambda () (%display-progress 5 #t)))
;; Echoes by rows are the REPL's and the kernel's: write and display keep one line.
(write (tensor '((1 2 3) (4 5 6)))) (newline)
(display (tensor '(((1 2) (3 4)) ((5 6) (7 8))))) (newline)

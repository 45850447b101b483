;; format's SRFI-48 field directives: ~Wa ~Ws ~Wd ~Wf right-aligned in W columns,
;; ~,Nf and ~W,Nf with N digits after the point (rounding the double's exact value to
;; nearest, ties to even), and the errors for bad directives and argument types.
(define (show thunk) (write (guard (e (#t (condition/report-string e))) (thunk))) (newline))
(show (lambda () (format "~,2f|~8,3f|~5d|~6a|~3a|~,0f|~,2f" 3.14159 2.5 42 "ab" "abcdef" 2.5 0.125)))
(show (lambda () (format "~,3f ~,2f ~,1f ~8,2f" 12 -0.0 (/ 1.0 0) (- (/ 0.0 0)))))
(show (lambda () (format "~8f|~8F|~f|~5s|~D|~d" 1.5 "x" 2 "q" 7 2.5)))
;; a field never truncates; exact integers print exactly
(show (lambda () (format "[~2d] [~1,1f]" 12345 123.456)))
(show (lambda () (format #f "~10,4f~%" 3.14159265)))
(show (lambda () (let ((p (open-output-string))) (format p "~4a|" 'ab) (get-output-string p))))
;; errors
(show (lambda () (format "~5d" 'x)))
(show (lambda () (format "~,2f" 'x)))
(show (lambda () (format "~3,2a" 1)))
(show (lambda () (format "~,f" 1)))
(show (lambda () (format "~3%")))
(show (lambda () (format "~3q" 1)))
(show (lambda () (format "~3")))
(show (lambda () (format "~3,")))
(show (lambda () (format "~")))
(show (lambda () (format "~5000a" 1)))
(show (lambda () (format "~,2f")))
(show (lambda () (format "~,20f" 0.1)))
(show (lambda () (format "~,2f" 123456789012345678)))

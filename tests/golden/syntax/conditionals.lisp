;; if cond case when unless and or: values, truthiness, else and => clauses.
(write (if #t 'yes 'no)) (newline)
(write (if #f 'yes 'no)) (newline)
;; Only #f is false: (), 0 and "" are true.
(write (list (if '() 'true 'false) (if 0 'true 'false) (if "" 'true 'false))) (newline)
(display (if #f #f)) (newline)          ; one-armed if with a false test: unspecified
;; if evaluates only the chosen branch.
(if #t (display "then") (display "else")) (newline)

(write (cond ((> 3 2) 'greater) ((< 3 2) 'less))) (newline)
(write (cond ((> 3 3) 'greater) ((< 3 3) 'less) (else 'equal))) (newline)
(write (cond ((assv 'b '((a 1) (b 2))) => cadr) (else 'none))) (newline)
(write (cond ((assv 'z '((a 1) (b 2))) => cadr) (else 'none))) (newline)
(write (cond (#f 1) ((+ 1 2)) (else 4))) (newline)   ; a test alone yields its value
(write (cond ((memv 3 '(1 2 3 4)) => length))) (newline)
(display (cond (#f 1))) (newline)                     ; no clause matches
(write (cond (else 1 2 3))) (newline)                 ; several body forms
(define (sign n) (cond ((< n 0) 'negative) ((= n 0) 'zero) (else 'positive)))
(write (map sign '(-5 0 5))) (newline)

(write (case (* 2 3) ((2 3 5 7) 'prime) ((1 4 6 8 9) 'composite))) (newline)
(write (case (car '(c d)) ((a e i o u) 'vowel) ((w y) 'semivowel) (else 'consonant))) (newline)
(write (case 'x ((a) 1) (else => (lambda (v) (list v 'fallback))))) (newline)
(write (case 5 ((5) => (lambda (v) (* v 10))) (else 0))) (newline)
(write (case #\a ((#\a #\b) 'ab) (else 'other))) (newline)
(write (case 2.5 ((2.5) 'float) (else 'other))) (newline)
(write (case '() ((()) 'empty) (else 'other))) (newline)
(display (case 99 ((1) 'one))) (newline)           ; no match, no else
(write (case 1 ((1) 'a 'b 'c))) (newline)

(write (when (> 1 0) 'a 'b)) (newline)
(display (when (< 1 0) 'a)) (newline)
(write (unless (< 1 0) 'x 'y)) (newline)
(display (unless (> 1 0) 'x)) (newline)
(when #t (display "side ") (display "effects")) (newline)

(write (list (and) (and 1) (and 1 2) (and 1 #f 3) (and #f (car '())))) (newline)
(write (list (or) (or 1) (or #f 2) (or #f #f) (or 1 (car '())))) (newline)
(write (and 1 2 'c '(f g))) (newline)
(write (or (memq 'b '(a b c)) (/ 3 0))) (newline)

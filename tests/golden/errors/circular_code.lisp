; Code built by a program can be circular; eval reports bad syntax for it
; instead of looping or crashing.
(define (circular-after n lst)  ; makes the cdr of pair n point back to pair n
  (let ((p (list-tail lst n))) (set-cdr! p p) lst))
(define (try form)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (eval form (interaction-environment))
    (display "evaluated") (newline)))
(try (circular-after 1 (list 'begin 1)))
(try (list 'lambda '() (circular-after 1 (list 'begin 1))))
(try (circular-after 1 (list 'cond '(#f 1))))
(try (circular-after 1 (list 'and 1)))
(try (circular-after 2 (list 'when #t 1)))
(try (circular-after 2 (list 'let '((a 1)) 'a)))
(try (circular-after 2 (list 'list 1 2)))
(try (list 'quasiquote (circular-after 0 (list 1))))
(try (circular-after 0 (list 1)))
; a circular list is fine as data, and list-tail/list-ref go around it at once
(define c (circular-after 2 (list 1 2 3)))
(set-cdr! (cddr c) c)
(display (list-ref c 100000000001)) (newline)
(display (car (list-tail c 99999999999))) (newline)
(try (list 'quote c))

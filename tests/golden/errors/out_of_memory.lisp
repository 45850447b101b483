; An allocation the collector refuses is an "out of memory" error naming the
; size, raised like any other error: guard catches it and the program goes on.
(define (report thunk)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (thunk)
    (display "allocated") (newline)))
(report (lambda () (make-vector 100000000000 0)))
(report (lambda () (make-string 100000000000 #\a)))
(report (lambda () (vector-grow (vector 1 2) 100000000000)))
(report (lambda () (tensor-rand '(100000 1000000) 1)))
; memory is still there for ordinary work afterwards
(display (length (make-list 100000 'x))) (newline)
(display (vector-length (make-vector 1000000 0))) (newline)
; and uncaught, it ends the program with the usual error line
(make-vector 100000000000 0)

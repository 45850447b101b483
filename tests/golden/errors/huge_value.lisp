; A value printed inside an error message is cut at 1000 characters, with
; "..." after the cut; an argument's type error keeps its shorter 80. Printing
; stops at the cut, so even a value of two million elements reports at once.
(define (report thunk)
  (guard (e (#t (let* ((m (condition/report-string e)) (n (string-length m)))
                  (display n) (display " ")
                  (if (< n 60)
                      (write m)
                      (begin (write (substring m 0 30)) (display " ... ")
                             (write (substring m (- n 12) n))))
                  (newline))))
    (thunk)))
(define big (iota 100000))
(report (lambda () (error "bad value:" big)))
(report (lambda () (error "two bad values:" big (list->vector big))))
(report (lambda () (raise big)))
(report (lambda () (big 1)))
(report (lambda () (hash-table-ref (make-hash-table) big)))
(report (lambda () (error "long string:" (make-string 5000 #\a))))
(report (lambda () (error "two million:" (make-list 2000000 'x))))
(report (lambda () (vector-ref big 0)))
; exactly 1000 characters are printed whole; 1001 are cut
(report (lambda () (error "998 + quotes:" (make-string 998 #\b))))
(report (lambda () (error "999 + quotes:" (make-string 999 #\b))))
; a cycle prints with its datum labels, as write does
(define cyc (list 1 2 3))
(set-cdr! (cddr cyc) cyc)
(report (lambda () (error "cycle:" cyc)))
(define vc (vector 1 2))
(vector-set! vc 0 vc)
(report (lambda () (error "vector cycle:" vc)))
; deep nesting without a cycle prints unlabelled, cut
(define deep (let loop ((i 0) (x 'end)) (if (= i 2000) x (loop (+ i 1) (list x)))))
(report (lambda () (error "deep:" deep)))
; a short value is untouched
(report (lambda () (error "short:" '(1 2 3) "text")))
; and uncaught, the error line carries the cut value
(error "uncaught:" big)

;; Escapes inside |...| symbols; write puts bars (and escapes) back.
(write '|sym\x41;bol|) (newline)
(write (symbol->string '|a\x20;b|)) (newline)
(write (symbol->string '|tab\there|)) (newline)
(write (symbol->string '|bar\|in|)) (newline)
(write (symbol->string '|back\\slash|)) (newline)
(write (eq? '|abc| 'abc)) (newline)
(write (eq? 'a|B C|d '|aB Cd|)) (newline)
(write (list '|a b| '|a\|b| '|1| '|| (string->symbol "x\ny"))) (newline)
(write (eq? '|a\|b| (read (open-input-string (call-with-output-string (lambda (p) (write '|a\|b| p))))))) (newline)
(write (list '|+INF.0| '|#t| '|.|)) (newline)
;; bars wherever another reader could take the name for something else
(write (list '|\\123| '|+i| '|-i| '|1+2i| '|+NaN.0abc| '|-inf.0| '1+ '-> '...)) (newline)

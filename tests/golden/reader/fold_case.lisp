;; #!fold-case folds symbols and character names until #!no-fold-case.
(write 'Hello) (newline)
#!fold-case
(write (list 'Hello 'WORLD (eq? 'ABC 'abc) #\SPACE #\NewLine #\A '|KeepMe|)) (newline)
(DEFINE (SQUARE X) (* X X))
(DISPLAY (square 4)) (NEWLINE)
#!no-fold-case
(write (list 'Hello (eq? 'ABC 'abc))) (newline)
;; on a port, the directive lasts for later reads from the same port
(define p (open-input-string "#!fold-case ABC (Def) #!no-fold-case Ghi"))
(write (list (read p) (read p) (read p))) (newline)
(write (read (open-input-string "#!fold-case"))) (newline)

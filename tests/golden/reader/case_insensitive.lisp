;; Number syntax and # syntax ignore case; symbols and character names do not.
(write (list #X1F #x1f #XfF #B101 #O17 #D99 #E#X10 #X#E10 #I3 #e2.0)) (newline)
(write (list 1E3 1e3 2.5E-1 +INF.0 -Inf.0 (nan? +NaN.0))) (newline)
(write (list #T #F #TRUE #False #t #f)) (newline)
(write (list 'Hello 'hello (eq? 'Hello 'hello))) (newline)
(write (list #\A #\a (char=? #\A #\a))) (newline)
(write (string->number "#X1F")) (newline)
;; R5RS exponent markers s f d l (either case) are accepted too
(write (list 1s2 1F2 1d2 1L2 2.5d-1)) (newline)
(write (list (string->number "+INF.0") (string->number "-nan.0") (string->number "1D3") (string->number "#I#X10"))) (newline)
(write (list '1d '1f 'inf 'nan)) (newline)

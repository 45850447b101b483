;; syntax-case and match are not part of Kiln: using them says so, rather than
;; complaining about the patterns.
(define (report form)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (eval form (interaction-environment))))
(report '(syntax-case x () ((_ a) a)))
(report '(define-syntax swap!
           (lambda (x)
             (syntax-case x ()
               ((_ a b) #'(let ((t a)) (set! a b) (set! b t)))))))
(report '(match '(1 2) ((a b) (+ a b))))
(report '(match-lambda (() 0)))
(report '(define-syntax foo (er-macro-transformer (lambda (f r c) 1))))
(report '(match 1 2))
(write '(#'a #`(b #,c #,@d))) (newline)
;; a program's own `match`, even one defined after its first use, is an ordinary procedure
(define (use) (match 1 2))
(define (match a b) (+ a b))
(write (use)) (newline)
;; uncaught: reported at the form
(syntax-case 'x () (_ 1))

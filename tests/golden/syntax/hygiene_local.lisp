;; Hygiene for macros defined in a local scope (let-syntax, letrec-syntax, an
;; internal define-syntax): a template's free identifiers mean what they meant
;; where the macro was defined, even when the use site rebinds them.

;; A local variable the template refers to, shadowed at the use.
(write (let ((v 'outer))
         (let-syntax ((get-v (syntax-rules () ((_) v))))
           (let ((v 'inner)) (get-v)))))
(newline)

;; Special forms and macros the template uses, rebound as variables at the use.
(write (let-syntax ((unless2 (syntax-rules () ((_ c e ...) (if c #f (begin e ...))))))
         (let ((if list) (begin vector)) (unless2 #f 'ran))))
(newline)

;; A binder the template introduces does not capture the user's variable.
(write (letrec-syntax ((either (syntax-rules ()
                                 ((_) #f)
                                 ((_ e) e)
                                 ((_ e r ...) (let ((t e)) (if t t (either r ...)))))))
         (let ((t 'users-t) (if 'users-if))
           (either #f t))))
(newline)

;; let-syntax: a template sees the macros outside, not the ones it binds.
(write (let-syntax ((shout (syntax-rules () ((_ x) (list 'outer x)))))
         (let-syntax ((shout (syntax-rules () ((_ x) (list 'inner x))))
                      (relay (syntax-rules () ((_ x) (shout x)))))
           (relay 1))))
(newline)
;; letrec-syntax: the templates see each other.
(write (letrec-syntax ((ev? (syntax-rules () ((_) #t) ((_ x . r) (od? . r))))
                       (od? (syntax-rules () ((_) #f) ((_ x . r) (ev? . r)))))
         (list (ev? a b c d) (od? a b c))))
(newline)

;; An internal define-syntax refers to the procedure's own parameter.
(define (scaler k)
  (define-syntax scale (syntax-rules () ((_ x) (* k x))))
  (let ((k 1000)) (scale 2)))
(write (scaler 3))
(newline)

;; Literals match by binding: else bound at the use is not the literal.
(define-syntax which
  (syntax-rules (else)
    ((_ else) 'the-else-keyword)
    ((_ x) 'something-else)))
(write (list (which else) (let ((else 1)) (which else)) (which other)))
(newline)
;; A literal the user shadows inside a local macro's scope.
(write (let-syntax ((arrow? (syntax-rules (=>) ((_ =>) 'arrow) ((_ x) 'not-arrow))))
         (list (arrow? =>) (let ((=> 0)) (arrow? =>)))))
(newline)
(write (let ((=> #f)) (cond (#t => 'ok))))
(newline)

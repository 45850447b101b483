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

;; A definition a template introduces inside a body is the macro's own: the
;; user's references to that name do not see it ...
(define tmp 'global-tmp)
(define-syntax define-tmp (syntax-rules () ((_ e) (define tmp e))))
(define (body-use) (define-tmp 'macro-tmp) tmp)
(write (body-use))
(newline)
;; ... while the template's own references do, and a name the user passes in
;; is the user's.
(define-syntax define-with-helper
  (syntax-rules ()
    ((_ name e) (begin (define helper e) (define (name) (list helper helper))))))
(define helper 'global-helper)
(write (let () (define-with-helper get 7) (list (get) helper)))
(newline)
;; A define nested in a template's procedure does not capture the user's name.
(define-syntax define-thunk
  (syntax-rules () ((_ name x) (define (name) (define tmp 'inner) x))))
(define-thunk get-tmp tmp)
(write (get-tmp))
(newline)
;; At top level the introduced name is defined as written (docs/language.md).
(define-with-helper top-get 8)
(write (list (top-get) helper))
(newline)

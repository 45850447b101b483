;; Macros that define macros, custom ellipses and (... ...) escapes.

;; The outer template gives the inner macro its pattern variable `v`; the
;; user's identifier of the same name passed in is not that variable.
(define-syntax define-constant-macro
  (syntax-rules ()
    ((_ name result)
     (define-syntax name (syntax-rules () ((_ v) 'result))))))
(define-constant-macro always-v v)
(write (always-v 42))
(newline)

;; The inner template quotes its own pattern variable.
(define-syntax define-quoter
  (syntax-rules ()
    ((_ name) (define-syntax name (syntax-rules () ((_ datum) 'datum))))))
(define-quoter q)
(write (q (a b c)))
(newline)

;; (... ...) puts a literal ellipsis into the inner macro.
(define-syntax define-collector
  (syntax-rules ()
    ((_ name op)
     (define-syntax name
       (syntax-rules ()
         ((_ x (... ...)) (op x (... ...))))))))
(define-collector sum-all +)
(define-collector list-all list)
(write (list (sum-all 1 2 3 4) (list-all 'a 'b)))
(newline)

;; A literal the outer template introduces is not the user's identifier:
;; the inner pattern (_ x) holds the user's `k`, a pattern variable there.
(define-syntax probe
  (syntax-rules ()
    ((_ x) (let-syntax ((inner (syntax-rules (k) ((_ x) 'pattern-variable) ((_ y) 'literal))))
             (inner anything)))))
(write (probe k))
(newline)

;; A custom ellipsis, so the template can emit `...` itself.
(define-syntax my-list
  (syntax-rules ::: ()
    ((_ x :::) (list 'x ::: '...))))
(write (my-list a b))
(newline)
;; A custom ellipsis in a macro-defining macro leaves `...` to the inner one.
(define-syntax define-lister
  (syntax-rules ::: ()
    ((_ name) (define-syntax name (syntax-rules () ((_ e ...) (list e ...)))))))
(define-lister lister)
(write (lister 1 2 3))
(newline)

;; A literal named like the ellipsis wins: there is no ellipsis then.
(define-syntax dots
  (syntax-rules ... (...)
    ((_ x) '(x ...))))
(write (dots 7))
(newline)

;; A whole escaped template: (... TEMPLATE) takes its ellipses literally.
(define-syntax escaped
  (syntax-rules ()
    ((_ x) '(... (x ...)))))
(write (escaped 1))
(newline)

;; Definitions a macro-defined macro introduces at top level.
(define-syntax define-getter-macro
  (syntax-rules ()
    ((_ macro-name var)
     (begin
       (define var 'stored)
       (define-syntax macro-name (syntax-rules () ((_) var)))))))
(define-getter-macro get-stored stored-value)
(write (let ((stored-value 'shadowed)) (get-stored)))
(newline)
;; Without a custom ellipsis or (... ...), the inner ellipsis is the outer one's.
(define-syntax define-bad-lister
  (syntax-rules ()
    ((_ name) (define-syntax name (syntax-rules () ((_ e ...) (list e ...)))))))
(define-bad-lister bad-lister)

;; Hygiene for free identifiers: a macro defined at top level means the
;; top-level binding of every name its template uses, even where the use site
;; binds that name locally (variables, special forms, macros, else and =>).

(define-syntax my-list (syntax-rules () ((_ x) (list x))))
(write (let ((list vector)) (my-list 1))) (newline)
;; The user's own `list` in the argument is still the user's.
(write (let ((list vector)) (my-list (list 1 2)))) (newline)

(define-syntax my-if (syntax-rules () ((_ c a b) (if c a b))))
(write (let ((if list)) (my-if #t 1 2))) (newline)

(define-syntax sign (syntax-rules () ((_ x) (cond ((> x 0) 'positive) (else 'not-positive)))))
(write (let ((else #f)) (sign -1))) (newline)

(define-syntax first-of (syntax-rules () ((_ x) (cond ((memv x '(1 2 3)) => car) (else 'none)))))
(write (let ((=> 'shadowed) (car cdr)) (first-of 2))) (newline)

(define-syntax kind (syntax-rules () ((_ x) (case x ((1) 'one) (else 'other)))))
(write (let ((else 'shadowed)) (kind 5))) (newline)

;; set! through a macro reaches the global, not the user's local of that name.
(define counter 0)
(define-syntax bump! (syntax-rules () ((_) (set! counter (+ counter 1)))))
(write (let ((counter 100)) (bump!) (bump!) counter)) (newline)
(write counter) (newline)

;; A macro used by a template, shadowed by a variable at the use site.
(define-syntax twice (syntax-rules () ((_ e) (begin e e))))
(define-syntax collect-twice
  (syntax-rules () ((_ e) (let ((r '())) (twice (set! r (cons e r))) r))))
(write (let ((twice 5)) (collect-twice 'x))) (newline)

;; A local macro of the same name does not capture the template's either.
(write (let-syntax ((list (syntax-rules () ((_ x) 'captured)))) (my-list 7))) (newline)

;; Inside a procedure body, at any depth.
(define (f list) (my-list list))
(write (f 'arg)) (newline)
(write ((lambda (if) (my-if #f 'yes 'no)) 0)) (newline)

;; Quoted and quasiquoted symbols in a template stay the plain symbols.
(define-syntax quoted-list (syntax-rules () ((_) 'list)))
(write (let ((list 1)) (eq? (quoted-list) 'list))) (newline)
(define-syntax tagged (syntax-rules () ((_ v) `(list ,v))))
(write (let ((list 1)) (tagged list))) (newline)
;; but the code in a quasiquote's unquotes has hygiene like any template code.
(define-syntax tagged-pair (syntax-rules () ((_ v) `(pair ,(cons v v) ,@(list v)))))
(write (let ((cons vector) (list vector)) (tagged-pair 1))) (newline)
(define-syntax labelled (syntax-rules () ((_ e) (let ((tmp e)) `(tmp ,tmp)))))
(write (let ((tmp 5)) (labelled (+ tmp 1)))) (newline)

;; Where nothing is shadowed, the template's names are the plain symbols.
(define-syntax show-name (syntax-rules () ((_) (quote (cons car)))))
(write (show-name)) (newline)

;; Errors name the original identifier.
(define-syntax call-missing (syntax-rules () ((_) (no-such-procedure 1))))
(guard (e (#t (display (condition/report-string e)) (newline)))
  (let ((no-such-procedure car)) (call-missing)))

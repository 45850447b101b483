;; define-syntax / let-syntax / letrec-syntax with syntax-rules.
(define-syntax my-or
  (syntax-rules ()
    ((_) #f)
    ((_ e) e)
    ((_ e r ...) (let ((t e)) (if t t (my-or r ...))))))
(write (my-or)) (newline)
(write (my-or #f 3)) (newline)
;; Hygiene: the macro's t does not capture the user's t.
(write (let ((t 5)) (my-or #f t))) (newline)
(define-syntax swap!
  (syntax-rules ()
    ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))
(define tmp 1)
(define other 2)
(swap! tmp other)
(write (list tmp other)) (newline)
(let ((tmp 'x) (y 'y))
  (swap! tmp y)
  (write (list tmp y)) (newline))
;; Recursive macro with a body ellipsis.
(define-syntax while
  (syntax-rules ()
    ((_ c body ...) (let lp () (when c body ... (lp))))))
(define i 0)
(while (< i 3) (display i) (set! i (+ i 1)))
(newline)
(define-syntax my-let*
  (syntax-rules ()
    ((_ () body ...) (let () body ...))
    ((_ ((x v) rest ...) body ...) (let ((x v)) (my-let* (rest ...) body ...)))))
(write (my-let* ((a 1) (b (+ a 1))) (* a b))) (newline)
;; Nested ellipsis.
(define-syntax flatten
  (syntax-rules ()
    ((_ (a b ...) ...) '(a ... (b ... ...)))))
(write (flatten (1 2 3) (4 5 6) (7))) (newline)
(define-syntax my-let
  (syntax-rules ()
    ((_ ((name val) ...) body1 body2 ...) ((lambda (name ...) body1 body2 ...) val ...))))
(write (my-let ((a 1) (b 2)) (+ a b))) (newline)
;; Literals.
(define-syntax arrow
  (syntax-rules (=>)
    ((_ a => b) (list 'arrow a b))
    ((_ a b c) (list 'plain a b c))))
(write (arrow 1 => 2)) (newline)
(write (arrow 1 2 3)) (newline)
;; Vector patterns.
(define-syntax vec-head
  (syntax-rules ()
    ((_ #(a b ...)) (list a '(b ...)))))
(write (vec-head #(1 2 3))) (newline)
;; A custom ellipsis identifier.
(define-syntax my-list
  (syntax-rules ::: ()
    ((_ a :::) (list a :::))))
(write (my-list 1 2 3)) (newline)
;; Dotted patterns.
(define-syntax rest-of
  (syntax-rules ()
    ((_ a . b) 'b)))
(write (rest-of 1 2 3)) (newline)
;; Ellipsis followed by more pattern elements.
(define-syntax last-of
  (syntax-rules ()
    ((_ a ... z) 'z)))
(write (last-of 1 2 3 4)) (newline)
;; (... ...) escapes an ellipsis in the template.
(define-syntax be-like-begin
  (syntax-rules ()
    ((be-like-begin name)
     (define-syntax name
       (syntax-rules ()
         ((name expr (... ...))
          (begin expr (... ...))))))))
(be-like-begin sequence)
(write (sequence 1 2 3 4)) (newline)
;; The macro keyword may appear as _ or by name; no rule matching is an error.
(define-syntax two-args (syntax-rules () ((two-args a b) (list a b))))
(write (two-args 1 2)) (newline)
(guard (e (#t (display (error-object-message e)) (newline)))
  (eval '(two-args 1)))
;; let-syntax and letrec-syntax.
(write (let-syntax ((foo (syntax-rules () ((_ x) (* x 2))))) (foo 21))) (newline)
(write (letrec-syntax
           ((ev? (syntax-rules () ((_) #t) ((_ x . r) (od? . r))))
            (od? (syntax-rules () ((_) #f) ((_ x . r) (ev? . r)))))
         (list (ev? 1 2 3 4) (od? 1 2 3))))
(newline)
;; define-syntax inside a body.
(define (f)
  (define-syntax twice (syntax-rules () ((_ e) (begin e e))))
  (twice (display "x"))
  (newline))
(f)
;; A macro that expands into a definition.
(define-syntax define-constant
  (syntax-rules () ((_ name v) (define name v))))
(define-constant answer 42)
(write answer) (newline)
(write (let () (define-constant local 7) local)) (newline)

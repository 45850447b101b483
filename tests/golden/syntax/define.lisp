;; define and set!: top level, internal defines as letrec*, redefinition.
(define x 10)
(write x) (newline)
(set! x 20)
(write x) (newline)
(define x 30)                      ; redefinition is allowed at top level
(write x) (newline)
(define (square n) (* n n))
(write (square 12)) (newline)
(define unset)
(define later (lambda () (helper)))  ; refers to a global defined afterwards
(define (helper) 'helped)
(write (later)) (newline)
;; Internal defines are letrec*: later ones see earlier values, and mutually
;; recursive procedures see each other.
(define (internal n)
  (define a 1)
  (define b (+ a 1))
  (define (ev? k) (if (= k 0) #t (od? (- k 1))))
  (define (od? k) (if (= k 0) #f (ev? (- k 1))))
  (list a b (ev? n) (od? n)))
(write (internal 7)) (newline)
;; Internal defines shadow globals only inside the body.
(define shadowed 'global)
(define (shadow)
  (define shadowed 'local)
  shadowed)
(write (list (shadow) shadowed)) (newline)
;; Defines inside let, let*, letrec and lambda bodies.
(write (let () (define a 5) (define (twice) (* a 2)) (twice))) (newline)
(write (let* ((p 1)) (define q (+ p 1)) q)) (newline)
;; An internal define inside a begin in a body is spliced.
(define (spliced)
  (begin (define s1 1) (define s2 2))
  (+ s1 s2))
(write (spliced)) (newline)
;; set! on a local and on a captured variable.
(define (local-set)
  (let ((v 1))
    (set! v (+ v 1))
    v))
(write (local-set)) (newline)
(define acc
  (let ((total 0))
    (lambda (n) (set! total (+ total n)) total)))
(acc 5)
(write (acc 10)) (newline)
;; Procedures defined with define know their names.
(write square) (newline)
(define anon (lambda (x) x))
(write anon) (newline)
;; set! of an undefined global is an error.
(guard (e (#t (display (error-object-message e)) (newline)))
  (set! never-defined-anywhere 1))

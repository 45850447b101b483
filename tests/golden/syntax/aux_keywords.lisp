;; `else` and `=>` are cond's and case's keywords only where they are not bound
;; locally: a local variable with that name is an ordinary variable.
(write (let ((=> #f)) (cond (#t => 'ok)))) (newline)
(write (let ((else #f)) (cond (else 1) (#t 2)))) (newline)
(write (cond ((assv 2 '((1 . a) (2 . b))) => cdr) (else 'none))) (newline)
(write (cond (#f 1) (else 'fallback))) (newline)
(write (case 3 ((1 2) 'low) (else => (lambda (x) (* x 10))))) (newline)
(write (case 1 ((1) => (lambda (x) (list 'one x))) (else 'other))) (newline)
(define (f =>) (cond (#t => 'arrow-is-a-variable)))
(write (f 'first)) (newline)
(write (let ((=> 'local-arrow)) (case 5 ((5) => )))) (newline)
;; guard clauses are cond clauses
(write (let ((else #f))
         (guard (e (else 'not-this) (#t (list 'caught e)))
           (raise 'x))))
(newline)
;; a locally bound else is not case's else: the clause is bad syntax
(guard (e (#t (display (condition/report-string e)) (newline)))
  (eval '(let ((else 1)) (case 1 (else 2))) (interaction-environment)))

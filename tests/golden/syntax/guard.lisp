;; guard: clauses, =>, else, nesting, re-raise when no clause matches.
(write (guard (e ((symbol? e) (list 'sym e)) ((string? e) (list 'str e))) (raise 'oops))) (newline)
(write (guard (e ((symbol? e) (list 'sym e)) ((string? e) (list 'str e))) (raise "text"))) (newline)
(write (guard (e ((assq 'a e) => cdr) ((assq 'b e))) (raise (list (cons 'a 42))))) (newline)
(write (guard (e ((assq 'a e) => cdr) ((assq 'b e))) (raise (list (cons 'b 23))))) (newline)
(write (guard (e (else 'caught)) (car 5))) (newline)
(write (guard (e (#f 'no)) 'body-value)) (newline)
(write (guard (e (#t 'never)) (+ 1 2))) (newline)
;; No clause matches: the object is raised again to the outer guard.
(write (guard (outer (#t (list 'outer outer)))
         (guard (inner ((number? inner) 'num))
           (raise 'not-a-number))))
(newline)
;; The body may have several forms and definitions.
(write (guard (e (#t e)) (define a 1) (define b 2) (+ a b))) (newline)
;; Error objects from error and from builtins.
(write (guard (e ((error-object? e) (list (error-object-message e) (error-object-irritants e))))
         (error "bad thing:" 42 'foo)))
(newline)
(write (guard (e ((error-object? e) (error-object-message e))) (vector-ref (vector 1 2 3) 9))) (newline)
(write (guard (e ((error-object? e) (error-object-irritants e))) (car '()))) (newline)
;; A guard clause body runs after unwinding: dynamic-wind after thunks have run.
(define trail '())
(define (note x) (set! trail (cons x trail)))
(guard (e (#t (note (list 'handler e))))
  (dynamic-wind
    (lambda () (note 'before))
    (lambda () (raise 'boom))
    (lambda () (note 'after))))
(write (reverse trail)) (newline)
;; guard inside a loop: the loop continues after each caught error.
(write (map (lambda (x) (guard (e (#t 'bad)) (if (number? x) (* x 2) (raise x)))) '(1 a 3)))
(newline)
;; try-catch, the convenience form.
(write (try-catch (car 5) (e) (error-object-message e))) (newline)
(write (try-catch (+ 1 2) (e) 'unused)) (newline)
;; An uncaught re-raise leaves the guard: a non-error value.
(guard (e ((string? e) 'no))
  (raise 'escaped-symbol))

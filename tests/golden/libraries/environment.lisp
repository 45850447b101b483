;; (environment SET...) and eval: a form evaluated in an environment sees that
;; environment's imports, and its definitions stay there.
(import (scheme base) (scheme write) (scheme eval) (scheme repl))
(define (show x) (write x) (newline))
(define (report thunk)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (thunk)))

(define-library (vault)
  (export deposit! balance)
  (import (scheme base))
  (begin
    (define total 0)
    (define secret 'hidden)
    (define (deposit! n) (set! total (+ total n)) total)
    (define (balance) total)))

(define env (environment '(vault) '(only (scheme base) + list)))
(show env)
(show (eval '(deposit! 5) env))
(show (eval '(list (balance) (+ 1 2)) env))
;; Only the exports are there: the library's private names are not.
(report (lambda () (eval 'secret env)))
;; A definition made by eval in an environment belongs to that environment.
(show (eval '(begin (define local-to-env 7) (* local-to-env 6)) env))
(report (lambda () local-to-env))
(show (eval 'local-to-env env))
;; The program's environment is interaction-environment's.
(eval '(define from-eval 'program) (interaction-environment))
(show from-eval)
;; Each environment is separate.
(define other (environment '(prefix (vault) v:)))
(show (eval '(v:balance) other))
(report (lambda () (eval 'local-to-env other)))
;; Macros in an environment's forms work, and use its names.
(show (eval '(let-syntax ((twice (syntax-rules () ((_ e) (list e e))))) (twice (balance))) env))
;; Errors: an unknown library, a bad import set, a non-environment.
(report (lambda () (environment '(no such library))))
(report (lambda () (environment '(only (vault) withdraw!))))
(report (lambda () (eval '(+ 1 2) 'not-an-environment)))

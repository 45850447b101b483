;; import sets: only, except, prefix and rename, nested in any order.
(define-library (greek)
  (export alpha beta gamma delta)
  (import (scheme base))
  (begin
    (define alpha 'a)
    (define beta 'b)
    (define gamma 'g)
    (define delta 'd)))

(define (report thunk)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (thunk)))

(import (only (greek) alpha beta))
(write (list alpha beta))
(newline)
(report (lambda () gamma))

(import (prefix (except (greek) alpha) g:))
(write (list g:beta g:gamma g:delta))
(newline)
(report (lambda () g:alpha))

(import (rename (only (greek) gamma delta) (gamma third) (delta fourth)))
(write (list third fourth))
(newline)

(import (rename (prefix (only (greek) alpha) greek-) (greek-alpha first)))
(write first)
(newline)
(report (lambda () greek-alpha))

;; The standard libraries take import sets too.
(import (prefix (only (scheme base) car cdr) s:))
(write (s:car (s:cdr '(1 2 3))))
(newline)
(import (rename (scheme char) (char-upcase up)))
(write (up #\a))
(newline)

;; A modifier naming something the set does not have is an error.
(report (lambda () (eval '(import (only (greek) omega)) (interaction-environment))))
(report (lambda () (eval '(import (except (greek) alpha omega)) (interaction-environment))))
(report (lambda () (eval '(import (rename (greek) (omega o))) (interaction-environment))))
(report (lambda () (eval '(import (only (prefix (greek) g-) alpha)) (interaction-environment))))
(report (lambda () (eval '(import (prefix (greek))) (interaction-environment))))
(report (lambda () (eval '(import (rename (greek) (alpha))) (interaction-environment))))
;; import is a top-level form.
(report (lambda () (eval '(let () (import (greek)) alpha) (interaction-environment))))

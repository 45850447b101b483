;; Each library error is a clear, catchable error.
(define (report form)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (eval form (interaction-environment))))

;; An unknown library: the message names it and where it was looked for.
(report '(import (no such library)))
;; A cycle of imports.
(report '(import (cycle first)))
;; A file on the path for another library.
(report '(import (broken misnamed)))
;; A library whose body fails is not defined; importing it again fails again.
(report '(import (broken failing)))
(report '(import (broken failing)))
;; Exporting a name the library does not define.
(report '(define-library (exports missing) (export present absent) (import (scheme base))
           (begin (define present 1))))
(report '(import (exports missing)))
;; Malformed library forms.
(report '(define-library "name" (export x)))
(report '(define-library (bad decl) (exports x)))
(report '(define-library (bad export) (export (rename a))))
(report '(define-library (bad include) (include "parts/no-such-file.scm")))
(report '(import (bad "name")))
(report '(import 42))
(report '(let () (define-library (inner) (export)) 1))
;; One identifier imported twice with different bindings: an error within one
;; import declaration and across a library's declarations. The same binding
;; twice is fine, and a later import form of the program replaces an earlier one.
(report '(define-library (dup one) (export x) (import (scheme base)) (begin (define x 1))))
(report '(define-library (dup two) (export x) (import (scheme base)) (begin (define x 2))))
(report '(import (dup one) (dup two)))
(report '(import (rename (only (scheme base) car) (car first)) (rename (only (scheme base) cdr) (cdr first))))
(report '(define-library (dup three) (export y) (import (scheme base)) (import (dup one))
           (import (prefix (dup two) other-) (rename (dup two) (x y))) (begin)))
(report '(define-library (dup four) (export x) (import (dup one)) (import (dup two)) (begin)))
(report '(import (only (scheme base) car) (only (scheme base) car)))
(eval '(import (dup one)) (interaction-environment))
(eval '(import (dup two)) (interaction-environment))
(display (eval 'x (interaction-environment))) (newline)

;; Malformed library declarations and import sets: each is a clear error.
(define (report form)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (eval form (interaction-environment))))

(define-library (fine) (export one) (import (scheme base)) (begin (define one 1)))

;; Declarations.
(report '(define-library (bad) 5))
(report '(define-library (bad) (export x) . 5))
(report '(define-library (bad) (include 42)))
(report '(define-library (bad) (include-ci "parts/missing.scm")))
(report '(define-library (bad) (cond-expand 7)))
(report '(define-library (bad) (cond-expand (else . 5))))
(report '(define-library (bad) (cond-expand ((bogus x) (begin)))))
(report '(define-library (bad) (include-library-declarations "parts/self_include.scm")))
(report '(define-library (bad) (import (no such library))))
(report '(define-library ()))
(report '(define-library (bad 1.5)))
;; A body error: the library is not defined, and nothing it defined leaks out.
(report '(define-library (bad body) (export ok) (import (scheme base))
           (begin (define ok 1) (car '()))))
(report '(import (bad body)))
;; Import sets.
(report '(import (only (fine) . one)))
(report '(import (prefix (fine) "str")))
(report '(import (rename (fine) (one 1))))
(report '(import (except (fine) one) (only (fine) two)))
(report '(import ()))
(report '(import (fine . more)))
;; cond-expand requirements.
(report '(cond-expand ((and r7rs . x) 1)))
(report '(cond-expand ((not) 1)))
(report '(cond-expand ((library) 1)))
(report '(cond-expand (42 1)))
(report (let loop ((i 0) (r 'r7rs)) (if (= i 2000) `(cond-expand (,r 'deep)) (loop (+ i 1) `(not ,r)))))
;; include-ci at top level, a missing file.
(report '(include-ci "parts/missing.scm"))
(write (guard (e (#t 'caught)) (eval 'one (interaction-environment))))
(newline)

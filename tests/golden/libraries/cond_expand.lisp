;; cond-expand: features, library requirements, and/or/not, else.
(import (scheme base) (scheme write))
(define (show x) (write x) (newline))

(show (cond-expand (r7rs 'r7rs) (else 'no)))
(show (cond-expand (kiln 'kiln) (else 'no)))
(show (cond-expand (no-such-feature 'yes) (else 'else-clause)))
(show (cond-expand ((and r7rs kiln) 'both) (else 'no)))
(show (cond-expand ((or no-such-feature r7rs) 'either) (else 'no)))
(show (cond-expand ((not no-such-feature) 'negated) (else 'no)))
(show (cond-expand ((library (scheme base)) 'has-base) (else 'no)))
(show (cond-expand ((library (scheme no-such-library)) 'yes) (else 'no-such-library)))
;; a library that a file on the load path provides, and one defined here
(show (cond-expand ((library (shapes util)) 'found-on-path) (else 'no)))
(define-library (local thing) (export thing) (import (scheme base)) (begin (define thing 1)))
(show (cond-expand ((library (local thing)) 'defined-here) (else 'no)))
;; no clause matches: nothing happens
(cond-expand (no-such-feature (show 'wrong)))
(show 'nothing-matched)

;; (features) lists what cond-expand tests.
(show (and (memq 'r7rs (features)) (memq 'kiln (features)) #t))
(show (let loop ((fs (features)))
        (cond ((null? fs) 'all-hold)
              ((eval `(cond-expand (,(car fs) #t) (else #f)) (interaction-environment)) (loop (cdr fs)))
              (else (car fs)))))
;; full-unicode is claimed only when strings hold Unicode characters.
(show (eq? (and (memq 'full-unicode (features)) #t)
           (guard (e (#t #f)) (= 1 (string-length (string (integer->char 955)))))))

(guard (e (#t (display (condition/report-string e)) (newline)))
  (eval '(cond-expand ((bogus-op x) 1)) (interaction-environment)))

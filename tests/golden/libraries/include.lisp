;; define-library's include, include-ci, include-library-declarations and
;; cond-expand declarations; the file names are relative to this file.
(define-library (text utils)
  (include-library-declarations "parts/exports.scm")
  (include "parts/shout.scm")
  (include-ci "parts/upper.scm")
  (cond-expand
    ((and r7rs (not no-such-feature))
     (begin (define (whisper s) (string-append "(" (string-downcase s) ")"))))
    (else
     (begin (define (whisper s) 'cond-expand-took-the-wrong-clause)))))

(import (scheme base) (scheme write) (text utils))
(write (list (shout "hey") (whisper "PSST") (loud-name)))
(newline)

;; include-ci at top level too.
(include-ci "parts/upper.scm")
(write (loud-name))
(newline)

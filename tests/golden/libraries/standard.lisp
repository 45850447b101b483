;; The standard libraries of R7RS-small, and what an importing program sees.
(import (scheme base) (scheme case-lambda) (scheme char) (scheme complex) (scheme cxr)
        (scheme eval) (scheme file) (scheme inexact) (scheme lazy) (scheme load)
        (scheme process-context) (scheme read) (scheme repl) (scheme time) (scheme write))
(import (scheme r5rs))

(define area
  (case-lambda
    ((side) (* side side))
    ((w h) (* w h))))
(write (list (area 3) (area 2 5) (char-upcase #\q) (caddr '(1 2 3)) (force (delay (+ 1 2)))
             (eval '(* 6 7) (interaction-environment))
             (read (open-input-string "(a . b)"))
             (exact (floor (sqrt 16)))
             (string? (car (command-line)))
             (> (current-jiffy) 0)
             (file-exists? "standard.lisp")))
(newline)

;; Kiln's own builtins are there whatever the program imports (see
;; docs/language.md, "Libraries"); (kiln) names them all explicitly.
(write (list (string-pad-left "7" 3) (length (iota 4))))
(newline)
(import (kiln))
(write (procedure? tensor-add))
(newline)

;; Every standard library can be imported under a prefix, so its names can be
;; told apart from the program's.
(import (prefix (scheme base) base:) (prefix (scheme write) w:))
(define (car x) 'the-programs-car)
(w:write (list (car '(1 2)) (base:car '(1 2))))
(newline)

;; Continuations and library loading. Loading a library holds C++ state (the
;; file's text, the stack of libraries being loaded, the environment), so:
;; an escape or re-entry out of a library's body unwinds it properly, and a
;; continuation captured in a body cannot be re-entered once the body is done.
(import (scheme base) (scheme write) (scheme eval) (callcc hook) (callcc saves-k))

(define (show . xs) (for-each display xs) (newline))
(define (try-reenter k)
  (guard (e ((error-object? e) (show (error-object-message e))))
    (k 'again)))

;; An escape from a library body to the program: the library is not
;; registered, and loading it again later works (no stale "cyclic import").
(show (call/cc (lambda (k)
                 (set-hook! k)
                 (eval '(import (callcc escape)) (interaction-environment)))))
(import (callcc escape))
(show "escape: " jumped)

;; A re-entry from a library body into an earlier top-level form: that form's
;; rest runs again, the import is abandoned, and a later import loads it.
(define n 0)
(define saved #f)
(let ()
  (show "before: " (call/cc (lambda (k) (set! saved k) 'first)))
  (set! n (+ n 1))
  (show "n = " n))
(set-hook! saved)
(import (callcc reenter))
(import (prefix (callcc reenter) r:))
(show "reenter: " r:jumped)

;; A continuation captured in a library's body is escape-only after it.
(show "runs = " runs)
(try-reenter saved-k)
(show "runs = " runs)

;; The same for a library defined in the program.
(define-library (inline saves-k)
  (export inline-k)
  (import (scheme base))
  (begin
    (define inline-k #f)
    (call/cc (lambda (k) (set! inline-k k)))))
(import (inline saves-k))
(try-reenter inline-k)
(show "done")

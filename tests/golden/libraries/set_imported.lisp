;; Assigning a variable imported from a library is an error (R7RS 5.6.1),
;; reported when the form is analysed; the library's own code may assign it.
(define-library (counter)
  (export count bump!)
  (import (scheme base))
  (begin
    (define count 0)
    (define (bump!) (set! count (+ count 1)))))
(import (scheme base) (scheme write) (counter))
(bump!)
(write count)
(newline)
(write (guard (e (#t (condition/report-string e))) (eval '(set! count 10) (interaction-environment))))
(newline)
;; A program's own definition of the name replaces the import; it may be assigned.
(define count 'mine)
(set! count 'still-mine)
(bump!)
(write (list count))
(newline)
(import (prefix (counter) c:))
(set! c:count 5)

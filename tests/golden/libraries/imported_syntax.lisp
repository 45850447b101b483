;; Special forms, macros and auxiliary syntax imported under other names are
;; still syntax: (prefix (scheme base) s:) gives s:define, s:if, s:else, ...
(import (prefix (scheme base) s:)
        (rename (only (scheme base) if else =>) (if si) (else otherwise) (=> gives))
        (scheme write))
(s:define (sign x) (s:cond ((s:< x 0) 'negative) ((s:= x 0) 'zero) (s:else 'positive)))
(write (list (sign -2) (sign 0) (sign 5)))
(newline)
(write (si #f 'then 'otherwise-branch))
(newline)
(write (cond ((assv 2 '((1 . one) (2 . two))) gives cdr) (otherwise 'none)))
(newline)
(write (case 3 ((1 2) 'low) (otherwise 'high)))
(newline)
(write (s:let loop ((i 0) (acc '())) (s:if (s:= i 3) acc (loop (s:+ i 1) (s:cons i acc)))))
(newline)
;; Derived forms (macros) imported under a prefix.
(write (s:do ((i 0 (s:+ i 1)) (sum 0 (s:+ sum i))) ((s:= i 4) sum)))
(newline)
(write (s:let-values (((q r) (s:floor/ 17 5))) (s:list q r)))
(newline)
;; A library body written with prefixed names: its definitions are declared
;; before the body runs, so a procedure may use one defined further down.
(define-library (prefixed)
  (export twice-later)
  (import (prefix (scheme base) b:))
  (begin
    (b:define (twice-later x) (later (later x)))
    (b:define (later x) (b:* 2 x))))
(import (prefixed))
(write (twice-later 5))
(newline)
;; The plain names are still there (Kiln's builtins are visible everywhere),
;; and a local variable named like the renamed keyword is a variable.
(write (let ((otherwise #f)) (cond (otherwise 'taken) (#t 'local-otherwise-is-false))))
(newline)

;; syntax-rules can be imported by name, renamed and prefixed like the special
;; forms: a program that imports (only (scheme base) ... syntax-rules) works.
(import (only (scheme base) define-syntax syntax-rules define if)
        (prefix (only (scheme base) define-syntax syntax-rules) s:)
        (rename (only (scheme base) syntax-rules) (syntax-rules rules))
        (scheme write))
(define-syntax my-unless (syntax-rules () ((_ c e) (if c #f e))))
(s:define-syntax twice (s:syntax-rules () ((_ e) (list e e))))
(define-syntax swap-args (rules () ((_ f a b) (f b a))))
(write (list (my-unless #f 'ran) (twice 1) (swap-args - 1 10)))
(newline)
;; let-syntax and a macro-defining macro with the renamed keyword.
(write (let-syntax ((inc (rules () ((_ x) (+ x 1))))) (inc 41)))
(newline)
(define-syntax def-const
  (rules () ((_ name v) (define-syntax name (rules () ((_) v))))))
(def-const seven 7)
(write (seven))
(newline)

;; The location is the `(` of the innermost list being evaluated when the error
;; happens: here the outermost cdr, which is the one that fails.
(define lst '(1 2))
(let loop ((l lst))
  (loop (cdr (cdr (cdr l)))))

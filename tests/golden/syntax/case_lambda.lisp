;; case-lambda: dispatch on argument count, rest clauses, arity errors.
(define area
  (case-lambda
    ((r) (* 3 r r))
    ((w h) (* w h))
    ((a b c) (+ a b c))))
(write (list (area 2) (area 3 4) (area 1 2 3))) (newline)
(define cl
  (case-lambda
    ((x) (list 'one x))
    ((x y) (list 'two x y))
    ((x . r) (list 'many x r))))
(write (list (cl 1) (cl 1 2) (cl 1 2 3))) (newline)
(define any-args (case-lambda (() 'none) (all (list 'some all))))
(write (list (any-args) (any-args 1 2))) (newline)
(write (procedure? area)) (newline)
;; The first clause that fits wins.
(define first-wins (case-lambda ((a . r) 'rest-clause) ((a b) 'exact-clause)))
(write (first-wins 1 2)) (newline)
(guard (e (#t (display (error-object-message e)) (newline)))
  (area 1 2 3 4))
(guard (e (#t (display (error-object-message e)) (newline)))
  (cl))

;; quasiquote, unquote and unquote-splicing, including nested levels and vectors.
(write `(1 ,(+ 1 1) 3)) (newline)
(write `(1 ,@(list 2 3) 4)) (newline)          ; splice in the middle
(write `(1 2 ,@(list 3 4))) (newline)          ; splice at the end
(write `(,@(list 1 2) 3)) (newline)            ; splice at the start
(write `(1 ,@'() 2)) (newline)                 ; splicing the empty list
(write `(1 . ,(+ 1 1))) (newline)              ; unquote in the cdr
(write `(x ,@(list 1 2) . y)) (newline)        ; splice before a dotted tail
(write `#(1 ,(+ 1 1) ,@(list 3 4) 5)) (newline) ; vectors
(write `#()) (newline)
(write `(a #(b ,(* 2 3)))) (newline)           ; a vector inside a list
(write `constant) (newline)
(write (quasiquote (1 (unquote (+ 1 1))))) (newline)
(let ((name 'x) (vals '(1 2)))
  (write `(define ,name (list ,@vals))) (newline))
;; Nested quasiquote: only the innermost level's unquotes are evaluated.
(write `(a `(b ,(c ,(+ 1 2))))) (newline)
(write `(a `(b ,(c ,@(list 1 2))))) (newline)
(write `(1 `,(+ 1 ,(+ 2 3)))) (newline)
(write ``,,(+ 1 1)) (newline)
(let ((x 'outer))
  (write `(1 `(2 ,(3 ,x)))) (newline))
;; The result is fresh list structure: mutating it leaves the template alone.
(define (make) `(1 ,(+ 1 1)))
(define a (make))
(set-car! a 'changed)
(write (make)) (newline)

;; Input ends inside a list: the error counts the unclosed brackets and
;; names where the outermost one opened.
(display "ran")
(newline)
(define (f x)
  (if x
      1

;; Comments: ; to end of line, #| ... |# (nesting), #; skips the next datum.
(write 1) ; a line comment after a form
(newline)
#| a block comment
   spanning lines |#
(write 2) (newline)
#| outer #| nested |# still a comment (write 'no) |#
(write 3) (newline)
(write '(a #| inline |# b)) (newline)
(write '(a #;(skipped datum) b)) (newline)
(write '(a #; skipped-symbol b)) (newline)
(write '(#;1 #;2 3)) (newline)
(write '(a #;#;x y b)) (newline)    ; #; followed by #; skips two data
#;(display "this whole form is skipped")
(write (+ 1 #;100 2)) (newline)
(write '(a ; comment inside a list
         b)) (newline)
(write "a ; not a comment") (newline)
(write "#| not a comment |#") (newline)
(write '(1 #|comment|#2)) (newline)
;;; several semicolons
(write 'end) (newline)
#| a block comment at the very end |#

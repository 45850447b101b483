;; A malformed special form is an error at the form.
(display "before")
(newline)
(let ((x)) 1 2)
(if)

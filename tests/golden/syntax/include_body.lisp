;; include inside a body splices its forms, so its definitions are internal (R7RS 4.1.7).
;; include inside a body: its definitions are internal.
(define (uses-include)
  (include "include_files/forms.scm")
  (list included-a (included-f)))
(write (uses-include)) (newline)

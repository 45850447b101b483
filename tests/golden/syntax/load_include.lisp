;; import is accepted and ignored; load runs a file; include splices its forms.
(import (scheme base) (scheme write) (scheme char))
(import (only (scheme base) car))
(display "import ok") (newline)
(load "include_files/helpers.lisp")
(write (helper-double 21)) (newline)
(write helper-loaded) (newline)
(include "include_files/forms.scm")
(write (included-f)) (newline)
;; load of a missing file is a catchable error.
(guard (e (#t (display "load failed, file-error? ") (write (file-error? e)) (newline)))
  (load "include_files/no-such-file.lisp"))

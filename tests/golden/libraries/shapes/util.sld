;; Imported by shapes/geometry.sld and by sld_files.lisp: its body prints a line
;; when it runs, which is once per process however often it is imported.
(define-library (shapes util)
  (export square helper-name)
  (import (scheme base) (scheme write))
  (begin
    (display "loading (shapes util)")
    (newline)
    (define helper 'util-helper)
    (define (helper-name) helper)))

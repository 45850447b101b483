;; (import (shapes geometry)) loads shapes/geometry.sld from this file's
;; directory; that library imports (shapes util) from the same tree.
(import (scheme base) (scheme write) (shapes geometry))
;; Already loaded: importing it again does not run its body again.
(import (shapes util))
(import (only (shapes util) helper-name))

(write (distance-squared origin (make-point 3 4)))
(newline)
(define p (scale (make-point 1 2) 10))
(write (list (point-x p) (point-y p)))
(newline)

;; Each library has its own `helper`; the program's is a third one.
(define helper 'program-helper)
(write (list helper (helper-name)))
(newline)

;; Names a library does not export are not visible.
(define (try thunk)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (thunk)))
(try (lambda () scale-point))
(try (lambda () dist2))

;; A program that imports, then defines a builtin's name (partition, fold)
;; further down: procedures defined above the definition call the program's own
;; procedure, as R7RS's whole-program scope says (r7rs-benchmarks' quicksort
;; and matrix do this).
(import (scheme base) (scheme write))

(define (split-at-pivot v) (partition v 0 (- (vector-length v) 1) <))
(define (sum-all lst) (fold + 0 lst))

(define (partition v left right less?) (list 'own-partition left right))
(define (fold f acc lst) (if (null? lst) acc (fold f (f acc (car lst)) (cdr lst))))

(write (split-at-pivot (vector 3 1 2))) (newline)
(write (sum-all '(1 2 3 4))) (newline)
;; Kiln's own procedures of those names are unaffected.
(write (list-sort < '(3 1 2))) (newline)
(display "before the read error") (newline)
(car '(1 . 2)))

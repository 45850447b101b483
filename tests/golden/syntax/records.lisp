;; define-record-type: constructor, predicate, accessors, modifiers, printing.
(define-record-type point
  (make-point x y)
  point?
  (x point-x set-point-x!)
  (y point-y))
(define p (make-point 1 2))
(write (list (point? p) (point? 5) (point? (vector 1 2)))) (newline)
(write (list (point-x p) (point-y p))) (newline)
(set-point-x! p 10)
(write (point-x p)) (newline)
(display p) (newline)
(write p) (newline)
(display point) (newline)
;; A field not set by the constructor, and a <bracketed> type name.
(define-record-type <node>
  (make-node val)
  node?
  (val node-val)
  (next node-next set-node-next!))
(define n (make-node 1))
(set-node-next! n 'tail)
(write (list (node-val n) (node-next n))) (newline)
(write (node? p)) (newline)
;; Records are distinct objects compared by identity.
(define p2 (make-point 10 2))
(write (list (eq? p p) (eq? p p2) (eqv? p p2))) (newline)
;; Inside a body.
(define (local-record)
  (define-record-type pair2 (kons a b) pair2? (a kar) (b kdr))
  (kdr (kons 1 2)))
(write (local-record)) (newline)
;; Errors: wrong record type, wrong argument count.
(guard (e (#t (display (error-object-message e)) (newline))) (point-x 5))
(guard (e (#t (display (error-object-message e)) (newline))) (point-x n))
(guard (e (#t (display (error-object-message e)) (newline))) (make-point 1))

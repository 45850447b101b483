; write and display print cycles with datum labels (R7RS write); acyclic
; structure, shared or not, prints without labels.
(define (circ . xs)
  (let ((l (apply list xs)))
    (set-cdr! (last-pair l) l)
    l))

(define l (circ 1 2 3))
(write l) (newline)
(display l) (newline)
(write (list l l)) (newline)
(write (vector l 'x l)) (newline)

; the cdr loops back into the middle of the list
(define m (list 1 2 3 4))
(set-cdr! (cdddr m) (cdr m))
(write m) (newline)

; a pair holding itself in its car
(define c (list 'a 'b))
(set-car! c c)
(write c) (newline)
(define c2 (list 1 2 3))
(set-car! (cdr c2) c2)
(write c2) (newline)

; each pair of a chain holding itself
(define chain (list 1 2 3 4))
(set-car! (cdr chain) (cdr chain))
(set-car! (cddr chain) (cddr chain))
(write chain) (newline)

; vectors
(define v (vector 1 2))
(vector-set! v 0 v)
(display v) (newline)
(define v2 (vector 'p 'q))
(vector-set! v2 1 (list 'in v2))
(write v2) (newline)

; two separate cycles are numbered in the order they are printed
(define a (circ 'a))
(define b (circ 'b 'b2))
(write (list b a b a)) (newline)

; a cycle inside a cycle
(define outer (list 'o1 'o2))
(define inner (circ 'i outer))
(set-cdr! (cdr outer) outer)
(write inner) (newline)

; records
(define-record-type node (make-node val next) node? (val node-val) (next node-next set-node-next!))
(define n (make-node 1 #f))
(set-node-next! n n)
(write n) (newline)
(define n2 (make-node 2 #f))
(define n3 (make-node 3 n2))
(set-node-next! n2 n3)
(write (list n2 n3)) (newline)

; strings and chars inside a cycle: display and write differ as usual
(define s (circ "str" #\c))
(write s) (newline)
(display s) (newline)

; shared but acyclic: no labels
(define shared (list 1 2))
(write (list shared shared (vector shared))) (newline)
(define tail (list 'x 'y))
(write (list (cons 'a tail) (cons 'b tail))) (newline)
(define dag (let loop ((k 4) (x '(leaf))) (if (= k 0) x (loop (- k 1) (list x x)))))
(write dag) (newline)

; format, string ports, write-string of a long circular list
(display (format #f "~s and ~a" l (list l))) (newline)
(write (call-with-output-string (lambda (p) (write v p)))) (newline)
(define long (circ 0 1 2 3 4 5 6 7 8 9))
(define big (append (iota 1000) long))
(define text (format #f "~s" big))
(display (string-length text)) (newline)
(display (substring text 3880 (string-length text))) (newline)

; errors: irritants and message text
(guard (e (#t (display (error-object-message e)) (display " ")
              (write (error-object-irritants e)) (newline)
              (write e) (newline)))
  (error "bad list" l 42))
(guard (e (#t (display (error-object-message e)) (newline)))
  (vector-ref l 0))
(guard (e (#t (display (error-object-message e)) (newline)))
  (+ 1 v))
(define e (guard (x (#t x)) (error "three" 1 2 3)))
(define irritants (error-object-irritants e))
(set-cdr! (cddr irritants) irritants)
(write e) (newline)
(error "uncaught, with a cycle:" l)

; A call of a builtin through its global name goes straight to the builtin
; (runtime/nodes.h, GlobalBuiltinCall) only while the name still holds it: a
; redefinition, a later define of the same name, a wrong argument count, and
; apply's tail call behave as for any other call.
(define-syntax check
  (syntax-rules ()
    ((_ expr) (guard (e (#t (display (error-object-message e)) (newline)))
                (write expr) (newline)))))
(define (plus a b) (+ a b))
(check (plus 2 3))
(define saved+ +)
(set! + -)
(check (plus 2 3))
(set! + saved+)
(check (plus 2 3))
; a later definition of a builtin's name
(define (magnitude-of x) (abs x))
(check (magnitude-of -3))
(define (abs x) (list 'mine x))
(check (magnitude-of -3))
; argument counts the builtin does not accept: its own arity error
(define (bad-car) (car '(1) '(2)))
(check (bad-car))
(define (no-args) (cons))
(check (no-args))
; apply and call-with-values end in a call of their own, in and out of tail position
(define (sum-all . xs) (apply + xs))
(check (sum-all 1 2 3 4))
(check (+ 1 (apply * '(2 3 4))))
(check (call-with-values (lambda () (values 1 2)) cons))
(define (count-down n) (if (= n 0) 'done (apply count-down (list (- n 1)))))
(check (count-down 100000))
; an error inside an operand is that operand's own
(check (+ 1 (car '())))
(check (vector-ref (vector 1 2) (+ 1 'x)))

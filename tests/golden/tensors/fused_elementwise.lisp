; Nested element-wise calls such as (tensor-sub w (tensor-mul 0.01 g)) run as one
; pass over the elements (runtime/fused_elementwise.h). They must give the same
; bits as the calls one at a time (a let between them stops fusion), and the
; same errors, redefinitions and tracing as without fusion.
(define-syntax check
  (syntax-rules ()
    ((_ expr) (guard (e (#t (display (error-object-message e)) (newline)))
                (write expr) (newline)))))
(define (show x) (write x) (newline))
(define w (tensor-randn '(3 700) 1))    ; 2100 elements: several blocks and a partial one
(define g (tensor-randn '(3 700) 2))
(define p (tensor-rand '(3 700) 3))
; fused against one call at a time
(show (equal? (tensor-sub w (tensor-mul 0.01 g))
              (let ((step (tensor-mul 0.01 g))) (tensor-sub w step))))
(show (equal? (tensor-add (tensor-mul w w) (tensor-div g 3))
              (let* ((a (tensor-mul w w)) (b (tensor-div g 3))) (tensor-add a b))))
(show (equal? (relu (tensor-sub (tensor-maximum w g) (tensor-abs p)))
              (let* ((m (tensor-maximum w g)) (a (tensor-abs p)) (d (tensor-sub m a))) (relu d))))
(show (equal? (tensor-sigmoid (tensor-neg (tensor-tanh (tensor-exp (tensor-sqrt (tensor-log p))))))
              (let* ((a (tensor-log p)) (b (tensor-sqrt a)) (c (tensor-exp b)) (d (tensor-tanh c))
                     (e (tensor-neg d)))
                (tensor-sigmoid e))))
(show (equal? (tensor-pow (tensor-add p 1) (tensor-mul 2 p))
              (let* ((a (tensor-add p 1)) (b (tensor-mul 2 p))) (tensor-pow a b))))
; scalars: numbers, rank-0 tensors, a unary op of a number, and a nest of numbers only
(show (equal? (tensor-sub w (tensor-mul (tensor 0.5) 3))
              (let ((s (tensor-mul (tensor 0.5) 3))) (tensor-sub w s))))
(show (equal? (tensor-add g (tensor-exp 1)) (let ((e (tensor-exp 1))) (tensor-add g e))))
(show (tensor-sub 10 (tensor-mul 2 3)))
(show (tensor-add (tensor '(1 2 3)) (tensor-neg 4)))
(show (tensor-mul (tensor 2) (tensor-add (tensor 1) 0.5)))
(show (tensor-sub (tensor '((1 2) (3 4))) (tensor-mul 0.5 (tensor '((2 4) (6 8))))))
; NaN and signed zeros go through unchanged
(show (tensor-maximum (tensor '(1 +nan.0 -0.0)) (tensor-mul 0 (tensor '(-1 1 -1)))))
; broadcasting between tensors of different shapes: the calls run one at a time
(show (tensor-add (tensor '((1 2 3) (4 5 6))) (tensor-mul 10 (tensor '(1 2 3)))))
; errors are those of the call that fails, at that call
(check (tensor-sub (tensor '((1 2 3) (4 5 6))) (tensor-mul 2 (tensor '(1 2)))))
(check (tensor-sub w (tensor-mul "a" g)))
(check (tensor-sub 'w (tensor-mul 2 g)))
(check (tensor-sub w (tensor-neg (tensor-mul 2 'g))))
(define (early) (define x (tensor-add y (tensor-mul 2 y))) (define y 1) x)
(check (early))
(check (tensor-add no-such-tensor (tensor-mul 2 g)))
; a local binding of a builtin's name is not the builtin
(show (let ((tensor-mul (lambda (a b) 5))) (tensor-sub 1 (tensor-mul 2 3))))
; nor is a redefinition
(define (scaled x) (tensor-sub 10 (tensor-mul 2 x)))
(show (scaled (tensor '(1 2))))
(define saved-mul tensor-mul)
(set! tensor-mul (lambda (a b) (tensor-add a b)))
(show (scaled (tensor '(1 2))))
(set! tensor-mul saved-mul)
(show (scaled (tensor '(1 2))))
; inside a traced function the calls record graph nodes as usual
(define (f x) (tensor-sum (tensor-sub x (tensor-mul 0.5 (tensor-mul x x)))))
(show (graph-grad f (tensor '(1 2 3))))
(show (graph-node-count f (tensor '(1 2 3))))
;; a number-only step inside a nest gives a Lisp number (canonical NaN) as the call does
(define fa (tensor '(1.0 2.0)))
(define fb (tensor '(3.0 -0.0)))
(write (equal? (tensor-add fb (tensor-mul (tensor-sqrt -2) fa))
               (let* ((t0 (tensor-sqrt -2)) (t1 (tensor-mul t0 fa))) (tensor-add fb t1))))
(newline)

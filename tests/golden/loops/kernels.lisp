;; Loops in native kernels (docs/jit.md, "Loops"): each jitted loop is compiled
;; (kernel-ready? on every kernel of the jit procedure, KILN_JIT=sync) and gives
;; the bits of the eager loop and of graph-eval. The loops and models are in
;; parts/examples.lisp (shared with forms.lisp) and parts/training.lisp (with grad.lisp).
(include "parts/examples.lisp")
(include "parts/training.lisp")
(define (native? j) (and (pair? (jit-wait j)) (let all ((ks (jit-kernels j))) (or (null? ks) (and (kernel-ready? (car ks)) (all (cdr ks)))))))
(define (check name f . args)
  (let* ((j (jit f)) (jitted (apply j args)) (eager (apply f args)) (traced (apply graph-eval f args)))
    (display name) (display ": ") (write eager) (newline)
    (display (if (native? j) "  native" "  NOT NATIVE"))
    (display (if (and (equal? eager traced) (equal? eager jitted)) ", same bits" ", DIFFERENT")) (newline)))

;; fori-loop over a number and over a tree (also 0 steps); scan over a sequence
;; and over a tree XS; while-loop (its condition evaluated in the kernel) stepping
;; and not; a scan inside a fori-loop, a while inside a scan, a fori in a fori.
(check "fori number" f1 1.0)
(check "fori tree" f2 init)
(check "fori 0 steps" (lambda (c) (fori-loop 0 step c)) init)
(check "scan" f3 h0 xs)
(check "scan tree xs" f4l 1.0 xs4)
(check "while" f5 1.3)
(check "while, no step" f5 200.0)
(check "scan in fori" f6 h0 xs)
(check "while in scan" f7 1.0 xs7)
(check "fori in fori"
       (lambda (m) (fori-loop 3 (lambda (i m) (fori-loop 4 (lambda (j m) (tensor-add (matmul m w) (* 0.5 j))) m)) m))
       (tensor '((1.0 0.5) (-0.5 2.0))))

;; A tensor constant inside the body, a captured traced value, 10 000 steps.
(check "fori 10000" (g 10000) 1.0 0.999)
(check "body constant" (lambda (v) (fori-loop 5 (lambda (i v) (tensor-mul (tensor-add v (tensor '(1.0 -2.0 0.5))) 0.5)) v))
       (tensor '(0.0 1.0 2.0)))

;; take inside a scan (embeddings), and its error from inside the kernel's loop:
;; the same message as the interpreter's.
(define table (tensor '((0.5 1.0) (-1.0 0.25) (2.0 0.0))))
(define (embed h ids) (car (scan (lambda (h i) (cons (tensor-tanh (tensor-add h (tensor-take table i))) 0.0)) h ids)))
(check "take in scan" embed (tensor '(0.0 0.0)) (tensor '(2.0 0.0 1.0 1.0)))
(define je (jit embed))
(je (tensor '(0.0 0.0)) (tensor '(2.0 0.0 1.0 1.0)))
(display (native? je)) (newline)
(define (try thunk)
  (guard (e (#t (display (error-object-message e))
                (for-each (lambda (x) (display " ") (write x)) (error-object-irritants e))
                (newline)))
    (display (thunk)) (newline)))
(try (lambda () (je (tensor '(0.0 0.0)) (tensor '(2.0 0.0 7.0 1.0)))))
(try (lambda () (graph-eval embed (tensor '(0.0 0.0)) (tensor '(2.0 0.0 7.0 1.0)))))

;; Loops whose body holds graph-grad's nodes: 50 SGD steps of a least-squares
;; model (8x16 -> 8, parts/training.lisp) in one kernel, against the eager loop's bits.
(check "fori SGD (final loss)" (lambda (w b x y) (let ((p (train w b x y))) (lin-loss (car p) (cadr p) x y)))
       w0 b0 x y)
(check "fori SGD (weights)" (lambda (w b x y) (cadr (train w b x y))) w0 b0 x y)

;; graph-grad through a scan: the forward loop saving its carries and the
;; backward (reverse) scan of the body's vector-Jacobian product, in one kernel.
(define wx (tensor '((0.5 -0.5 0.2) (0.1 0.3 -0.4))))
(define xs2 (tensor '((1.0 0.0) (0.5 0.5) (-0.3 0.2) (0.0 1.0) (2.0 -1.0) (0.7 0.1))))
(check "scan RNN grad" (lambda (u w h0 xs) (graph-grad rnn-loss u w h0 xs)) u wx h0 xs2)
(check "scan in grad in fori"
       (lambda (u w h0 xs)
         (fori-loop 5 (lambda (i u) (tensor-sub u (tensor-mul 0.05 (cadr (graph-grad rnn-loss u w h0 xs))))) u))
       u wx h0 xs2)

;; A loop inside a jit procedure called at several batch sizes: a graph with a loop
;; forms no batch family (the loop's lowering has no run-time length), so each size
;; gets its own native kernel for its exact shapes, each bit for bit the interpreter.
(define wb (tensor '((0.5 -0.25 0.1) (0.125 0.75 -0.5) (0.3 0.2 0.1))))
(define (rows-loop x) (fori-loop 3 (lambda (i x) (tensor-tanh (matmul x wb))) x))
(define jb (jit rows-loop))
(for-each (lambda (n)
            (let ((x (tensor-randn (list n 3) n)))
              (display (list n (equal? (jb x) (graph-eval rows-loop x)) (equal? (jb x) (rows-loop x)))))
            (newline))
          '(32 29 5))
(display (map (lambda (k) (list (kernel-ready? k) (kernel-batch-family k))) (jit-wait jb))) (newline)

;; A bad random key in a scan's body, and a bad index in a while-loop's condition:
;; the kernel raises what the interpreter raises, and runs when all is well.
(define (noisy c ks) (car (scan (lambda (c k) (cons (+ c (tensor-sum (tensor-rand '(2) k))) 0.0)) c ks)))
(define jn (jit noisy))
(display (equal? (jn 0.0 (tensor '(1.0 2.0 3.0))) (noisy 0.0 (tensor '(1.0 2.0 3.0))))) (newline)
(try (lambda () (jn 0.0 (tensor '(1.0 2.5 3.0)))))
(try (lambda () (graph-eval noisy 0.0 (tensor '(1.0 2.5 3.0)))))
(define (walk i0) (while-loop (lambda (c) (< (tensor-sum (tensor-take table (car c))) 2.0))
                              (lambda (c) (list (+ (car c) 1.0) (+ (cadr c) 1.0))) (list i0 0.0)))
(define jw (jit walk))
(display (list (jw 0.0) (equal? (jw 0.0) (walk 0.0)) (equal? (jw 1.0) (graph-eval walk 1.0)))) (newline)
(try (lambda () (jw 0.5)))
(try (lambda () (graph-eval walk 0.5)))
(display (list (native? jn) (native? jw))) (newline)

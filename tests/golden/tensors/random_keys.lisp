;; Keys (SPEC §14): element i of tensor-rand / tensor-randn is a function of KEY and
;; i only (SplitMix64's output i; Box-Muller on pairs), so an exact-integer KEY gives
;; the numbers the seeded forms always gave, and a traced KEY gives the same numbers
;; in graph-eval and in a compiled kernel. random-split derives new keys.
(write (tensor->list (tensor-rand '(5) 42))) (newline)
(write (tensor->list (tensor-randn '(5) 42))) (newline)
;; a prefix of a longer draw is the shorter draw: each element stands alone
(write (equal? (tensor-rand '(3) 9) (tensor-slice (tensor-rand '(7) 9) 0 0 3))) (newline)
(write (equal? (tensor-randn '(3) 9) (tensor-slice (tensor-randn '(7) 9) 0 0 3))) (newline)
(write (equal? (tensor-rand '(2 3) -5) (reshape (tensor-rand '(6) -5) '(2 3)))) (newline)
;; an integral float is the same key (a traced key is one)
(write (equal? (tensor-rand '(4) 7) (tensor-rand '(4) 7.0))) (newline)
(write (random-split 42 3)) (newline)
(write (random-split 0 1)) (newline)
;; traced keys: graph-eval and jit agree with the eager draw, and each call's key is
;; its own (a key argument is not a constant)
(define (draw key) (list (tensor-rand '(3 3) key) (tensor-randn '(5) key) (random-split key 2)))
(define jdraw (jit draw))
(define (inexact-keys d) (map (lambda (v) (if (list? v) (map exact->inexact v) v)) d))
(for-each (lambda (k)
            (write (list (equal? (inexact-keys (draw k)) (graph-eval draw k))
                         (equal? (inexact-keys (draw k)) (jdraw k))))
            (newline))
          '(1 2 -77 4503599627370496))
(write (equal? (jdraw 1) (jdraw 2))) (newline)
;; split keys made in traced code come back as integral floats; they are keys too
(define (two-draws key)
  (let ((ks (random-split key 2)))
    (list (tensor-rand '(2) (car ks)) (tensor-rand '(2) (cadr ks)))))
(write (equal? (two-draws 5) ((jit two-draws) 5))) (newline)
(write (map tensor->list (two-draws 5))) (newline)
;; a constant key inside jit is a constant: the same numbers on every call
(define fixed (jit (lambda (x) (tensor-add x (tensor-rand '(2) 3)))))
(write (equal? (fixed (zeros '(2))) (fixed (zeros '(2))))) (newline)
(write (graph-ir (lambda (k) (tensor-rand '(2 2) k)) 1)) (newline)
;; many elements: threaded eagerly, a loop in the kernel, the same bits
(write (equal? (tensor-randn '(100001) 11) ((jit (lambda (k) (tensor-randn '(100001) k))) 11))) (newline)
;; a key that is not an integer: the same error eagerly, in graph-eval and from a kernel
(define (report thunk) (guard (e (#t (display (condition/report-string e)) (newline))) (thunk)))
(report (lambda () (tensor-rand '(2) 1.5)))
(report (lambda () (tensor-rand '(2) 'k)))
(report (lambda () (graph-eval (lambda (k) (tensor-rand '(2) k)) 1.5)))
(report (lambda () ((jit (lambda (k) (tensor-randn '(2) k))) 2.5)))
(report (lambda () ((jit (lambda (k) (random-split k 2))) +nan.0)))
(report (lambda () (graph-eval (lambda (k) (tensor-rand '(2) k)) 1e300)))
(report (lambda () (graph-eval (lambda (x) (tensor-rand '(2) x)) (ones '(2)))))
(report (lambda () (random-split 1 0)))
(report (lambda () ((jit (lambda (k) (random-split k 0))) 1)))
(random-split 1/2 2)

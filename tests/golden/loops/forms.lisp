;; fori-loop, scan and while-loop (SPEC §15): each form gives the same bits
;; eagerly, under graph-eval and under jit (tests/golden/loops/).
(define (same? a b) (equal? a b))
(define (check name eager traced jitted)
  (display name) (display ": ") (write eager) (newline)
  (display (if (and (same? eager traced) (same? eager jitted)) "  same bits" "  DIFFERENT")) (newline))

;; fori-loop over a number, with the index used.
(define (halve i c) (+ (* c 0.5) (* i 0.25)))
(define (f1 x) (fori-loop 7 halve x))
(check "fori number" (f1 1.0) (graph-eval f1 1.0) ((jit f1) 1.0))

;; fori-loop over a tree: a list of a tensor and a named entry list.
(define w (tensor '((0.5 -0.25) (0.125 0.75))))
(define (step i c)
  (list (tensor-tanh (matmul (car c) w))
        (list (cons 'n (+ (cdr (assq 'n (cadr c))) 1.0))
              (cons 's (+ (cdr (assq 's (cadr c))) (tensor-sum (car c)))))))
(define init (list (tensor '((1.0 2.0) (3.0 -1.0))) (list (cons 'n 0.0) (cons 's 0.0))))
(define (f2 c) (fori-loop 4 step c))
(check "fori tree" (f2 init) (graph-eval f2 init) ((jit f2) init))

;; N = 0 returns INIT; the body is not called.
(display (fori-loop 0 (lambda (i c) (error "not called")) 3.5)) (newline)

;; scan: an Elman cell over a 5 x 3 sequence; YS stacked along axis 0.
(define u (tensor '((0.3 -0.2 0.1) (0.05 0.4 -0.3) (-0.1 0.2 0.25))))
(define xs (tensor '((1.0 0.0 -1.0) (0.5 0.5 0.5) (-0.3 0.2 0.9) (0.0 1.0 0.0) (2.0 -1.0 0.5))))
(define (cell h x)
  (let ((h2 (tensor-tanh (tensor-add (matmul h u) x))))
    (cons h2 (list h2 (tensor-sum h2)))))
(define (f3 h xs) (let ((r (scan cell h xs))) (list (car r) (cdr r))))
(define h0 (tensor '(0.1 -0.1 0.2)))
(check "scan" (f3 h0 xs) (graph-eval f3 h0 xs) ((jit f3) h0 xs))
;; A rank-1 XS gives numbers; a tree XS is sliced leaf by leaf.
(define (f4 c xs) (scan (lambda (c x) (cons (+ (* c 0.9) (car x)) (* (cadr x) c))) c xs))
(define xs4 (list (tensor '(1.0 2.0 3.0)) (tensor '(0.5 0.25 0.125))))
(define (f4l c xs) (let ((r (f4 c xs))) (list (car r) (cdr r))))
(check "scan tree xs" (f4l 1.0 xs4) (graph-eval f4l 1.0 xs4) ((jit f4l) 1.0 xs4))

;; while-loop: Collatz-like steps on a float, until it passes 100.
(define (grow c) (list (+ (car c) 1.0) (* (cadr c) 1.7)))
(define (f5 x) (while-loop (lambda (c) (< (cadr c) 100.0)) grow (list 0.0 x)))
(check "while" (f5 1.3) (graph-eval f5 1.3) ((jit f5) 1.3))
(check "while, no step" (f5 200.0) (graph-eval f5 200.0) ((jit f5) 200.0))

;; Nesting: a scan inside a fori-loop, a while inside a scan.
(define (f6 h xs) (fori-loop 3 (lambda (i h) (car (scan cell h xs))) h))
(check "scan in fori" (f6 h0 xs) (graph-eval f6 h0 xs) ((jit f6) h0 xs))
(define (f7 c xs)
  (let ((r (scan (lambda (c x) (let ((y (while-loop (lambda (v) (< v 10.0)) (lambda (v) (* v (+ 1.5 x))) c)))
                                (cons (- y 9.0) y)))
                 c xs)))
    (list (car r) (cdr r))))
(define xs7 (tensor '(0.0 0.5 1.0 0.25)))
(check "while in scan" (f7 1.0 xs7) (graph-eval f7 1.0 xs7) ((jit f7) 1.0 xs7))

;; Captured traced values enter the body once; the loop is one node whatever N is.
(define (g n) (lambda (x a) (fori-loop n (lambda (i c) (+ (* c a) (exp a))) x)))
(display (list (graph-node-count (g 10) 1.0 0.5) (graph-node-count (g 10000) 1.0 0.5))) (newline)
(check "fori 10000" ((g 10000) 1.0 0.999) (graph-eval (g 10000) 1.0 0.999) ((jit (g 10000)) 1.0 0.999))
(display (graph-ir (g 3) 1.0 0.5)) (newline)

;; fori-loop, scan and while-loop (SPEC §15): each form gives the same bits
;; eagerly, under graph-eval and under jit (tests/golden/loops/). The loops and
;; their arguments are in parts/examples.lisp, shared with kernels.lisp.
(include "parts/examples.lisp")
(define (same? a b) (equal? a b))
(define (check name eager traced jitted)
  (display name) (display ": ") (write eager) (newline)
  (display (if (and (same? eager traced) (same? eager jitted)) "  same bits" "  DIFFERENT")) (newline))

;; fori-loop over a number, with the index used; over a tree.
(check "fori number" (f1 1.0) (graph-eval f1 1.0) ((jit f1) 1.0))
(check "fori tree" (f2 init) (graph-eval f2 init) ((jit f2) init))

;; N = 0 returns INIT; the body is not called.
(display (fori-loop 0 (lambda (i c) (error "not called")) 3.5)) (newline)

;; scan: an Elman cell over a sequence; a tree XS.
(check "scan" (f3 h0 xs) (graph-eval f3 h0 xs) ((jit f3) h0 xs))
(check "scan tree xs" (f4l 1.0 xs4) (graph-eval f4l 1.0 xs4) ((jit f4l) 1.0 xs4))

;; while-loop: stepping until past 100, and not at all.
(check "while" (f5 1.3) (graph-eval f5 1.3) ((jit f5) 1.3))
(check "while, no step" (f5 200.0) (graph-eval f5 200.0) ((jit f5) 200.0))

;; Nesting: a scan inside a fori-loop, a while inside a scan.
(check "scan in fori" (f6 h0 xs) (graph-eval f6 h0 xs) ((jit f6) h0 xs))
(check "while in scan" (f7 1.0 xs7) (graph-eval f7 1.0 xs7) ((jit f7) 1.0 xs7))

;; Captured traced values enter the body once; the loop is one node whatever N is.
(display (list (graph-node-count (g 10) 1.0 0.5) (graph-node-count (g 10000) 1.0 0.5))) (newline)
(check "fori 10000" ((g 10000) 1.0 0.999) (graph-eval (g 10000) 1.0 0.999) ((jit (g 10000)) 1.0 0.999))
(display (graph-ir (g 3) 1.0 0.5)) (newline)

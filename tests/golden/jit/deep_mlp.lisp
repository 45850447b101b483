;; A 12-layer tanh MLP: most of its kernel's units recur layer after layer and are
;; emitted once as shared functions (docs/jit.md, "Shared units"). The compiled
;; gradient and a jitted SGD step must equal graph-grad and the eager step bit for
;; bit.
(include "parts/tanh_mlp.lisp")
(define params (map layer (iota 12 1)))
(define X (tensor-randn (list 5 width) 1000))
(define Y (tensor-randn (list 5 width) 1001))

(define k (graph-compile-grad loss params X Y))
(define compiled (k params X Y))
(define interpreted (graph-grad loss params X Y))
(display (list "compiled gradient equals graph-grad:" (equal? compiled interpreted))) (newline)
(display (list "loss:" (car compiled))) (newline)

(define step-jit (jit step))
(define (train f ps n)
  (let loop ((ps ps) (i 0) (losses '()))
    (if (= i n) (cons ps (reverse losses))
        (let ((r (f ps X Y))) (loop (car r) (+ i 1) (cons (cadr r) losses))))))
(define eager (train step params 5))
(define jitted (train step-jit params 5))
(display (list "jitted steps equal eager steps:" (equal? eager jitted))) (newline)
(display (list "losses:" (cdr jitted))) (newline)
(display (list "kernels:" (length (jit-kernels step-jit)))) (newline)

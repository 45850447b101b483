;;; jit_dispatch.lisp — nanoseconds a jit procedure adds to a call of its kernel
;;; on a signature it has seen (five tensor arguments): best of six alternating
;;; rounds of 200 000 calls each. Timings, not golden output.
(define x (tensor-rand '(8 16) 1)) (define t (tensor-rand '(8 8) 2)) (define w (tensor-rand '(16 8) 3))
(define b (tensor-rand '(8) 4)) (define c (tensor-rand '(8) 5))
(define (f x w b t c) (tensor-sum (* (- (+ (matmul x w) b) t) c)))
(define j (jit f))
(j x w b t c)
(jit-wait j)  ; the kernel, not the interpreter meanwhile (SPEC §17)
(define k (car (jit-kernels j)))
(define (rep n g) (let loop ((i 0)) (when (< i n) (g x w b t c) (loop (+ i 1)))))
(define (per-call g) (let ((t0 (now-micros))) (rep 200000 g) (/ (* 1000.0 (- (now-micros) t0)) 200000)))
(define (best-of g n) (let loop ((i 0) (best 1e9)) (if (= i n) best (loop (+ i 1) (min best (per-call g))))))
(define tj 1e9) (define tk 1e9)
(let loop ((r 0)) (when (< r 6) (set! tj (min tj (per-call j))) (set! tk (min tk (per-call k))) (loop (+ r 1))))
(display (list 'jit-ns tj 'kernel-ns tk 'dispatch-ns (- tj tk))) (newline)

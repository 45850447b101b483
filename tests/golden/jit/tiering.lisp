;; Tiered execution (SPEC §17, docs/jit.md "Tiered execution"): a jitted step with
;; twelve batch sizes at once. Each new signature is answered by the graph
;; interpreter while its kernel compiles in the background; the calls go on while
;; the kernels take over one after another, and every result, before, during and
;; after the switch, must equal graph-eval's bit for bit.
(include "parts/tanh_mlp.lisp")
(define params (map layer (iota 2 1)))
(define step-jit (jit step))

(define sizes (iota 8 1))
(define inputs
  (map (lambda (n) (list (tensor-randn (list n width) (+ 500 n)) (tensor-randn (list n width) (+ 600 n))))
       sizes))
(define references (map (lambda (xy) (graph-eval step params (car xy) (cadr xy))) inputs))
(define (run-all)  ; one call per signature: #t when every result is the reference
  (let loop ((xs inputs) (rs references) (ok #t))
    (if (null? xs) ok
        (loop (cdr xs) (cdr rs) (and (equal? (step-jit params (caar xs) (cadar xs)) (car rs)) ok)))))

(define first-round (run-all))  ; eight new signatures: eight compiles queued
(display (list "first calls equal graph-eval:" first-round)) (newline)
(display (list "kernels:" (length (jit-kernels step-jit)))) (newline)
(define (all-ready?) (let loop ((ks (jit-kernels step-jit))) (or (null? ks) (and (kernel-ready? (car ks)) (loop (cdr ks))))))
;; Keep calling while the kernels take over (each round checks all eight).
(define rounds-ok
  (let loop ((ok #t) (i 0))
    (if (or (all-ready?) (= i 100000)) ok (loop (and (run-all) ok) (+ i 1)))))
(display (list "calls during the switch equal graph-eval:" rounds-ok)) (newline)
(jit-wait step-jit)
(display (list "all kernels ready:" (all-ready?))) (newline)
(display (list "calls after the switch equal graph-eval:" (run-all))) (newline)
(display (list "still one kernel per signature:" (length (jit-kernels step-jit)))) (newline)
;; kernel-ready? and jit-wait check their argument.
(guard (e (#t (display (condition/report-string e)) (newline))) (kernel-ready? step-jit))
(guard (e (#t (display (condition/report-string e)) (newline))) (jit-wait car))

;; A jit procedure whose trace read a top-level variable traces again when that
;; variable now holds a different value (SPEC §15, docs/jit.md#captured-variables):
;; set! or define, numbers compared by value (eqv?), everything else by identity.
;; `traces` counts the traces; (jit-kernels J) keeps one kernel per signature.
(define traces 0)
(define (show . xs) (for-each (lambda (x) (display x) (display " ")) xs) (newline))

;; a captured number
(define scale 2.0)
(define (f x) (set! traces (+ traces 1)) (* x scale))
(define J (jit f))
(show "scale 2:" (J 1.5) (J 1.5) "traces" traces)
(define k1 (car (jit-kernels J)))
(set! scale 3.0)
(show "scale 3:" (J 1.5) "traces" traces "kernels" (length (jit-kernels J)))
(show "kernel replaced:" (not (eq? k1 (car (jit-kernels J)))))
;; set! back to an eqv? value (a new float object of the same value): no retrace
(define k2 (car (jit-kernels J)))
(set! scale (+ 1.0 2.0))
(show "same value:" (J 1.5) "traces" traces "same kernel" (eq? k2 (car (jit-kernels J))))
;; an exact 3 is not eqv? to 3.0: a retrace, and the result is the same number
(set! scale 3)
(show "exact 3:" (J 1.5) "traces" traces)
;; define counts as well
(define scale 0.5)
(show "redefined:" (J 1.5) "traces" traces)
;; another variable assigned between calls: nothing to retrace
(define unrelated 0)
(set! unrelated 1)
(show "unrelated set!:" (J 1.5) "traces" traces)
;; each signature checks at its own next call
(show "rank-1 signature:" (J (tensor '(1.0 2.0))) "traces" traces)
(set! scale 10.0)
(show "both retrace:" (J 1.5) (J (tensor '(1.0 2.0))) "traces" traces "kernels" (length (jit-kernels J)))

;; a captured tensor: by identity
(define w (tensor '(1.0 2.0)))
(define (g x) (set! traces (+ traces 1)) (tensor-sum (tensor-mul x w)))
(define G (jit g))
(set! traces 0)
(show "w (1 2):" (G (tensor '(1.0 1.0))) "traces" traces)
(set! w (tensor '(5.0 7.0)))
(show "w (5 7):" (G (tensor '(1.0 1.0))) "traces" traces)
(set! w w)
(show "w itself again:" (G (tensor '(1.0 1.0))) "traces" traces)
(set! w (tensor '(5.0 7.0)))
(show "an equal new tensor:" (G (tensor '(1.0 1.0))) "traces" traces)

;; a captured procedure: a closure and a builtin, by set! and by define
(define (act x) (tensor-tanh x))
(define alias relu)
(define (h x) (set! traces (+ traces 1)) (tensor-add (act x) (alias x)))
(define H (jit h))
(define xs (tensor '(-1.0 0.5)))
(set! traces 0)
(show "tanh + relu:" (H xs) "traces" traces)
(set! act tensor-neg)
(show "neg + relu:" (H xs) "traces" traces)
(define (act x) (tensor-mul x 2.0))
(show "2x + relu:" (H xs) "traces" traces)
(set! alias tensor-abs)
(show "2x + abs:" (H xs) "traces" traces)
;; a retrace that fails raises, and keeps failing until the variable is mended
(set! act 'not-a-procedure)
(show "bad act:" (try-catch (H xs) (e) (error-object-message e)))
(show "still bad:" (try-catch (H xs) (e) (error-object-message e)))
(set! act tensor-neg)
(show "mended:" (H xs) "traces" traces)

;; nested jit: the inner procedure is inlined into the outer trace, so the outer
;; kernel depends on what the inner one reads too
(define bias 1.0)
(define inner (jit (lambda (x) (+ x bias))))
(define outer (jit (lambda (x) (* 2.0 (inner x)))))
(show "bias 1:" (inner 1.0) (outer 1.0))
(set! bias 100.0)
(show "bias 100:" (inner 1.0) (outer 1.0))

;; a traced function assigning a variable it reads (a trace counter) is not
;; retraced on every call: the snapshot is taken after the trace
(define calls 0)
(define C (jit (lambda (x) (set! calls (+ calls 1)) (* x calls))))
(show "counter:" (C 2.0) (C 2.0) (C 2.0) "calls" calls)

;; what is not noticed: a vector (or list) captured and changed in place keeps its
;; identity, so the kernel keeps the values it traced (as JAX does)
(define cfg (vector 2.0))
(define V (jit (lambda (x) (* x (vector-ref cfg 0)))))
(show "cfg 2:" (V 1.0))
(vector-set! cfg 0 9.0)
(show "cfg changed in place, not retraced:" (V 1.0) "eager:" (* 1.0 (vector-ref cfg 0)))

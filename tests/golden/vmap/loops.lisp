;; vmap over fori-loop, scan and while-loop (SPEC §15): the loop stays one loop node
;; whose body works on the whole batch; results against map over the slices bit for bit,
;; eagerly, under jit and under graph-eval.
(include "parts/against_slices.lisp")

;; The same through jit and graph-eval: the batched loop's bits.
(define (check-all f axes . args)
  (let ((r (apply (vmap f axes) args)))
    (write r) (display " ")
    (write (and (agrees? f axes 0 args r)
                (equal? r (apply (jit (vmap f axes)) args))
                (equal? r (apply graph-eval (vmap f axes) args))))
    (newline)))

(define m (tensor-randn '(4 3 5) 7))
(define w (tensor-mul 0.4 (tensor-randn '(5 5) 8)))
(define v (tensor '(1.3 50.0 200.0 7.0)))
;; fori-loop: a mapped carry, an unmapped captured weight
(check-all (lambda (a) (fori-loop 4 (lambda (i c) (tensor-tanh (matmul c w))) a)) '(0) m)
;; an unmapped INIT made mapped by the body (the carry's fixed point), the index used
(check-all (lambda (a) (fori-loop 3 (lambda (i c) (+ (* c 0.5) (* i (tensor-sum a)))) 1.0)) '(0) m)
;; a tree carry: a mapped tensor beside an unmapped counter and a mapped number
(check-all (lambda (a)
             (fori-loop 3 (lambda (i c) (list (tensor-mul (car c) 0.5) (+ (cadr c) 1.0) (+ (caddr c) (tensor-max (car c)))))
                        (list a 0.0 0.0)))
           '(0) m)
;; a loop touching no mapped value inside the mapped function runs once
(check-all (lambda (a) (tensor-add a (fori-loop 3 (lambda (i c) (* c 2.0)) 1.0))) '(0) m)

;; scan: a per-example Elman RNN (each example its own h0 and sequence; shared h0;
;; a time-major batch mapped along axis 1)
(define u (tensor '((0.3 -0.2 0.1) (0.05 0.4 -0.3) (-0.1 0.2 0.25))))
(define (cell h x) (let ((h2 (tensor-tanh (tensor-add (matmul h u) x)))) (cons h2 (list h2 (tensor-sum h2)))))
(define (rnn h0 xs) (scan cell h0 xs))
(define hs (tensor-randn '(4 3) 11))
(define seqs (tensor-randn '(4 6 3) 12))
(check-all rnn '(0 0) hs seqs)
(check-all rnn '(#f 0) (tensor '(0.1 -0.1 0.2)) seqs)
(check-all rnn '(0 #f) hs (tensor-randn '(6 3) 13))
(write (equal? ((vmap rnn '(0 1)) hs (transpose seqs '(1 0 2))) ((vmap rnn '(0 0)) hs seqs))) (newline)
;; Y the same for every example (an unmapped XS), the carry mapped
(check-all (lambda (c xs) (let ((r (scan (lambda (c x) (cons (+ c x) (* 2.0 x))) c xs))) (list (car r) (cdr r))))
           '(0 #f) v (tensor '(1.0 2.0 3.0)))

;; while-loop: COND on a mapped value, so each example stops at its own step
;; (9, 2, 0 and 6 steps here); the batch runs until the last is done.
(define (grow c) (list (+ (car c) 1.0) (* (cadr c) 1.7)))
(define (until-100 x) (while-loop (lambda (c) (tensor-lt (cadr c) 100.0)) grow (list 0.0 x)))
(check-all until-100 '(0) v)
;; COND on an unmapped counter: one trip count for the batch
(check-all (lambda (x) (while-loop (lambda (c) (< (car c) 3.0)) grow (list 0.0 x))) '(0) v)

;; nesting: a scan inside a fori-loop, a vmap of a vmap of a loop
(check-all (lambda (h xs) (fori-loop 2 (lambda (i h) (car (scan cell h xs))) h)) '(0 0) hs seqs)
(define mm (tensor-randn '(2 4 3 5) 14))
(define inner (vmap (lambda (a) (fori-loop 2 (lambda (i c) (tensor-tanh (matmul c w))) a))))
(write (agrees? inner '(0) 0 (list mm) ((vmap inner) mm))) (newline)

;; per-example gradients through a scan, jitted: one batched forward and backward loop
(define (loss u h0 xs)
  (let ((r (scan (lambda (h x) (let ((h2 (tensor-tanh (tensor-add (matmul h u) x)))) (cons h2 h2))) h0 xs)))
    (+ (tensor-sum (tensor-mul (cdr r) (cdr r))) (tensor-sum (car r)))))
(define pe (jit (vmap (grad loss) '(#f 0 0))))
(define g (pe u hs seqs))
(write g) (newline)
(write (agrees? (grad loss) '(#f 0 0) 0 (list u hs seqs) g)) (newline)
(write (equal? g ((vmap (grad loss) '(#f 0 0)) u hs seqs))) (newline)
;; every parameter's gradient, per example, as a tree
(define g3 ((jit (vmap (grad loss '(0 1 2)) '(#f 0 0))) u hs seqs))
(write (agrees? (grad loss '(0 1 2)) '(#f 0 0) 0 (list u hs seqs) g3)) (newline)

;; the batched graph does not grow with the batch (the loop is not unrolled over it)
(define (rnn-final h0 xs) (car (scan cell h0 xs)))
(write (= (graph-node-count (vmap rnn-final) hs seqs)
          (graph-node-count (vmap rnn-final) (tensor-randn '(9 3) 1) (tensor-randn '(9 6 3) 2))))
(newline)
;; per-example gradients run the batched forward loop once too: one forward and one
;; backward loop node (the value's loop and autodiff's share the batched body)
(define (per-example u h0 xs) ((vmap (grad loss) '(#f 0 0)) u h0 xs))
(write (length (filter (lambda (n) (eq? (cadr n) 'loop)) (car (graph-ir per-example u hs seqs))))) (newline)

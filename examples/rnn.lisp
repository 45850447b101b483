;; rnn.lisp — an Elman RNN learns to continue a sine wave, trained with `scan`
;; inside `grad` inside `jit` (SPEC §15, docs/graph.md "Control flow").
;;
;; The recurrence h' = tanh(x Wx + h Wh + b) runs over the sequence as one `scan`,
;; so the traced graph holds the cell once, not once per time step; `grad`
;; differentiates through it (the forward pass keeps every step's state, the
;; backward pass is a reverse scan), and a whole SGD epoch of many steps is one
;; `fori-loop` in one jitted procedure. Data and initial weights are fixed, so the
;; printed losses are the same on every run.
;;
;;     kiln examples/rnn.lisp

;; A script that loads this file may define rnn-epochs first (the golden test
;; tests/golden/loops/rnn runs a short version).
(define epochs (guard (e (#t 8)) rnn-epochs))
(define steps-per-epoch 50)

;; 16 windows of a sine wave, 12 steps each, batch along axis 1: xs is 12 x 16 x 1,
;; the target at each step the next value.
(define seq-len 12)
(define batch 16)
(define (wave t k) (sin (+ (* 0.45 t) (* 0.7 k))))
(define (series offset)
  (tensor (map (lambda (t) (map (lambda (k) (list (wave (+ t offset) k))) (iota batch))) (iota seq-len))))
(define xs (series 0))
(define targets (series 1))

(define hidden 8)
(define initial-params
  (list (cons 'wx (tensor-mul (tensor-randn (list 1 hidden) 11) 0.5))
        (cons 'wh (tensor-mul (tensor-randn (list hidden hidden) 12) (/ 0.5 (sqrt hidden))))
        (cons 'b (zeros (list hidden)))
        (cons 'wo (tensor-mul (tensor-randn (list hidden 1) 13) 0.5))))
(define (param p k) (cdr (assq k p)))

;; Mean squared error of the one-step-ahead predictions over the whole sequence.
(define (loss p xs targets)
  (let* ((h0 (zeros (list batch hidden)))
         (r (scan (lambda (h x)
                    (let ((h2 (tensor-tanh (+ (matmul x (param p 'wx)) (matmul h (param p 'wh)) (param p 'b)))))
                      (cons h2 (matmul h2 (param p 'wo)))))
                  h0 xs))
         (err (- (cdr r) targets)))
    (tensor-mean (* err err))))

(define rate 0.2)
(define (sgd p g) (map (lambda (e ge) (cons (car e) (- (cdr e) (* rate (cdr ge))))) p g))
;; One epoch: steps-per-epoch SGD steps in one fori-loop, one jitted procedure.
(define epoch
  (jit (lambda (p xs targets)
         (fori-loop steps-per-epoch
                    (lambda (i p) (sgd p (cadr ((grad loss 0) p xs targets))))
                    p))))

(define final
  (let loop ((e 0) (p initial-params))
    (display "epoch ") (display e) (display ": loss ") (display (loss p xs targets)) (newline)
    (if (= e epochs) p (loop (+ e 1) (epoch p xs targets)))))

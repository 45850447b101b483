;; Every path to a result, for the ops tests of this directory (included; no .out
;; file, so the runner does not run it alone). (paths F ARG...): whether graph-eval,
;; a compiled kernel and jit each give eager F's result, with equal?, so bit for bit.
;; (grad-paths LOSS ARG...): whether a compiled gradient kernel and grad each give
;; graph-grad's (value gradients...), and its value is the eager loss. (show X):
;; X written, a tensor as its shape and its elements.
(define (paths f . args)
  (let ((e (apply f args)))
    (list (equal? e (apply graph-eval f args))
          (equal? e (apply (apply graph-compile f args) args))
          (equal? e (apply (jit f) args)))))
(define (grad-paths loss . args)
  (let ((g (apply graph-grad loss args)))
    (list (equal? g (apply (apply graph-compile-grad loss args) args))
          (equal? g (apply (grad loss) args))
          (equal? (car g) (apply loss args)))))
(define (show x) (write (if (tensor? x) (list (tensor-shape x) (tensor->list x)) x)) (newline))

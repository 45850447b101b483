;; TEMPORARY: stand-ins for the ops of branch `ops` (tensor-gelu, random-split, dropout)
;; with the same signatures, until they reach main; delete this file and the `load` of it
;; in char_transformer.lisp then. gelu is PyTorch's tanh form; dropout exists only at rate 0.
(define (tensor-gelu x)
  (let* ((beta (* (sqrt 2.0) (/ 2.0 (sqrt (* 4.0 (atan 1.0)))) 0.5))
         (inner (* beta (+ x (* 0.044715 (* (* x x) x))))))
    (* (* 0.5 x) (+ 1.0 (tensor-tanh inner)))))
(define (random-split key n) (map (lambda (i) (+ (* key n) i 1)) (iota n)))
(define (dropout t rate key)
  (if (= rate 0) t (error "dropout (shim): only rate 0 until branch ops lands, got" rate)))

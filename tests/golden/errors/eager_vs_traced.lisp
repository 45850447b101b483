;; Every tensor op, called eagerly and traced (graph-eval) with the same bad
;; arguments, raises the same error: the shape and argument rules exist once
;; (runtime/tensor_shapes.h). Each line shows the message when both agree and
;; DIFFER with both messages when they do not. A traced argument prints as
;; #<symbolic value SHAPE> (its elements are not known while tracing), so where
;; the traced message names one, the messages are compared up to ", got".
(define (message thunk)
  (guard (e (#t (if (error-object? e) (error-object-message e) e)))
    (thunk)
    "no error"))

(define (before-got text)
  (let loop ((i 0))
    (cond ((> (+ i 6) (string-length text)) #f)
          ((string=? (substring text i (+ i 6)) ", got ") (substring text 0 i))
          (else (loop (+ i 1))))))

(define (mentions-symbolic? text)
  (let loop ((i 0))
    (cond ((> (+ i 17) (string-length text)) #f)
          ((string=? (substring text i (+ i 17)) "#<symbolic value ") #t)
          (else (loop (+ i 1))))))

(define (same-but-value? eager traced)
  (and (mentions-symbolic? traced) (before-got eager)
       (equal? (before-got eager) (before-got traced))))

(define (check name f . args)
  (let ((eager (message (lambda () (apply f args))))
        (traced (message (lambda () (apply graph-eval f args)))))
    (if (or (equal? eager traced) (same-but-value? eager traced))
        (begin (display name) (display ": ") (display (if (equal? eager traced) eager (before-got eager))))
        (begin (display "DIFFER ") (display name)
               (display "\n  eager:  ") (display eager)
               (display "\n  traced: ") (display traced)))
    (newline)))

(define t23 (tensor-rand '(2 3) 1))
(define t43 (tensor-rand '(4 3) 2))
(define t234 (tensor-rand '(2 3 4) 3))
(define t0 (tensor 1.5))

;; Element-wise binary ops, builtin and generic: shapes that do not broadcast,
;; and an argument that is neither a number nor a tensor.
(for-each
 (lambda (entry)
   (let ((name (car entry)) (op (cadr entry)))
     (check name (lambda (a b) (op a b)) t23 t43)
     (check name (lambda (a) (op a "s")) t23)))
 (list (list "tensor-add" tensor-add) (list "tensor-sub" tensor-sub)
       (list "tensor-mul" tensor-mul) (list "tensor-div" tensor-div)
       (list "tensor-pow" tensor-pow) (list "tensor-maximum" tensor-maximum)
       (list "+" +) (list "-" -) (list "*" *) (list "/" /)
       (list "max" max) (list "min" min) (list "expt" expt)))

;; Element-wise unary ops, builtin and generic: one argument too many. (Not log:
;; (log x b) takes numbers eagerly and is not supported traced, where x may be a
;; traced number.)
(for-each
 (lambda (entry)
   (check (car entry) (lambda (a) ((cadr entry) a a)) t23))
 (list (list "tensor-neg" tensor-neg) (list "tensor-exp" tensor-exp)
       (list "tensor-log" tensor-log) (list "tensor-sqrt" tensor-sqrt)
       (list "tensor-tanh" tensor-tanh) (list "tensor-sigmoid" tensor-sigmoid)
       (list "relu" relu) (list "tensor-abs" tensor-abs)
       (list "tensor-softplus" tensor-softplus)
       (list "exp" exp) (list "sqrt" sqrt) (list "abs" abs)
       (list "sin" sin) (list "cos" cos) (list "tan" tan) (list "square" square)
       (list "1+" 1+) (list "1-" 1-)))

;; Reductions: an axis out of range, or not an integer.
(for-each
 (lambda (entry)
   (let ((name (car entry)) (op (cadr entry)))
     (check name (lambda (a) (op a 2)) t23)
     (check name (lambda (a) (op a -3)) t23)
     (check name (lambda (a) (op a 'x)) t23)
     (check name (lambda (a) (op a 0)) t0)))
 (list (list "tensor-sum" tensor-sum) (list "tensor-mean" tensor-mean)
       (list "tensor-max" tensor-max)))

;; matmul
(check "matmul" (lambda (a b) (matmul a b)) t23 t43)
(check "matmul" (lambda (a b) (matmul a b)) t234 t43)
(check "matmul" (lambda (a b) (matmul a b)) t234 t234)
(check "matmul" (lambda (a b) (matmul a b)) t234 (tensor-rand '(3 4 2) 4))
(check "matmul" (lambda (a b) (matmul a b)) t0 t23)
(check "matmul" (lambda (a) (matmul a "s")) t23)
(check "matmul" (lambda (a b) (matmul a b)) 2.0 t23)

;; transpose
(check "transpose" (lambda (a) (transpose a)) t234)
(check "transpose" (lambda (a) (transpose a '(0 0 1))) t234)
(check "transpose" (lambda (a) (transpose a '(1 0))) t234)
(check "transpose" (lambda (a) (transpose a)) t0)

;; reshape
(check "reshape" (lambda (a) (reshape a '(4 2))) t23)
(check "reshape" (lambda (a) (reshape a '(4 -1))) t23)
(check "reshape" (lambda (a) (reshape a '(-1 -1))) t23)
(check "reshape" (lambda (a) (reshape a '(2 x))) t23)
(check "reshape" (lambda (a) (reshape a '(0 6))) t23)
(check "reshape" (lambda (a) (reshape a 6)) t23)
(check "reshape" (lambda (a) (reshape a '(1 1 1 1 1 1 1 1 6))) t23)
(check "reshape" (lambda (a) (reshape a '(4611686018427387904 4))) t23)

;; tensor-slice
(check "tensor-slice" (lambda (a) (tensor-slice a 1 2 5)) t23)
(check "tensor-slice" (lambda (a) (tensor-slice a 1 2 2)) t23)
(check "tensor-slice" (lambda (a) (tensor-slice a 2 0 1)) t23)
(check "tensor-slice" (lambda (a) (tensor-slice a 0 'x 1)) t23)
(check "tensor-slice" (lambda (a) (tensor-slice a 0 0 1)) t0)

;; concat
(check "concat" (lambda (a b) (concat (list a b) 1)) t23 t43)
(check "concat" (lambda (a b) (concat (list a b))) t23 t234)
(check "concat" (lambda (a b) (concat (list a b) 2)) t23 t43)
(check "concat" (lambda (a b) (concat (list a b))) t0 t0)
(check "concat" (lambda (a) (concat (list a "s"))) t23)
(check "concat" (lambda (a) (concat '() a)) t23)
(check "concat" (lambda (a b) (concat (list b a))) 2.0 t23)

;; The ops of the training library (SPEC §13): primitives and composites.
(check "tensor-argmax" (lambda (a) (tensor-argmax a 2)) t23)
(check "tensor-argmax" (lambda (a) (tensor-argmax a 'x)) t23)
(check "tensor-argmax" (lambda (a) (tensor-argmax a)) t0)
(check "tensor-argmax" (lambda (a) (tensor-argmax a)) 2.0)
(check "tensor-take" (lambda (a) (tensor-take a '(0 2))) t23)
(check "tensor-take" (lambda (a) (tensor-take a '(1.5) 1)) t23)
(check "tensor-take" (lambda (a) (tensor-take a '(0) 2)) t23)
(check "tensor-take" (lambda (a) (tensor-take a "s")) t23)
(check "tensor-take" (lambda (a) (tensor-take a '(0))) 2.0)
(check "tensor-take" (lambda (a i) (tensor-take a i)) t23 (tensor '(0.0 -1.0)))
(check "tensor-take" (lambda (a i) (tensor-take a i)) (ones '(1 1 1 1 1 1 1 1)) (ones '(1 1)))
(check "tensor-where" (lambda (a b) (tensor-where a b 1.0)) t23 t43)
(check "tensor-where" (lambda (a b) (tensor-where a b 1.0)) (ones '(2)) t43)
(check "tensor-where" (lambda (a) (tensor-where a "s" 1.0)) t23)
(check "tensor-clip" (lambda (a b) (tensor-clip a b 1.0)) t23 t43)
(check "tensor-clip" (lambda (a b) (tensor-clip a 0.0 b)) t23 t43)
(check "tensor-clip" (lambda (a) (tensor-clip a 0.0 "s")) t23)
(check "stop-gradient" (lambda (a) (stop-gradient a a)) t23)
(check "softmax" (lambda (a) (softmax a 2)) t23)
(check "softmax" (lambda (a) (softmax a)) 2.0)
(check "log-softmax" (lambda (a) (log-softmax a 'x)) t23)
(check "log-softmax" (lambda (a) (log-softmax a)) t0)
(check "one-hot" (lambda (a) (one-hot '(0 3) 3)) t23)
(check "one-hot" (lambda (a) (one-hot a 0)) t23)
(check "one-hot" (lambda (a) (one-hot a 2)) (tensor '(1.0 2.0)))
(check "cross-entropy" (lambda (a) (cross-entropy a '(0 1 2))) t23)
(check "cross-entropy" (lambda (a) (cross-entropy a '(0 3))) t23)
(check "cross-entropy" (lambda (a b) (cross-entropy a b)) t23 t43)
(check "cross-entropy" (lambda (a b) (cross-entropy a b)) t23 (tensor '(0.0 3.0)))
(check "cross-entropy" (lambda (a) (cross-entropy a '(0))) (ones '(3)))
(check "mse" (lambda (a b) (mse a b)) t23 t43)
(check "mse" (lambda (a) (mse a "s")) t23)

;; Not compared: `<` and the other comparisons take numbers eagerly, while a
;; traced `if` over them records a select of tensors (docs/graph.md).

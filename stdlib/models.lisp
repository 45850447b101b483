;;; models.lisp — building blocks of models, written in Kiln (SPEC §14, docs/models.md):
;;; linear, layer-norm, attention and causal-mask. Embedded after the training library
;;; (stdlib/embed.cmake, stdlib/boot.cpp), whose softmax attention uses.
;;; Each is a composite of primitive ops that records their nodes, so it is
;;; bit-identical eagerly, under graph-eval and in compiled kernels, its gradient is
;;; the chain rule through them, and it never branches on a value (only on shapes,
;;; which are known while tracing). Arguments are checked here, by shape, so an error
;;; names the function and the shapes rather than the op inside it that would fail.

;; "2x3", "scalar" for (): shapes as the C++ errors write them.
(define (%shape-string s)
  (if (null? s)
      "scalar"
      (apply string-append (number->string (car s))
             (map (lambda (d) (string-append "x" (number->string d))) (cdr s)))))

;; Does shape S broadcast to shape TARGET (NumPy's rule, without growing TARGET)?
(define (%broadcasts-to? s target)
  (and (<= (length s) (length target))
       (let loop ((a (reverse s)) (b (reverse target)))
         (or (null? a)
             (and (or (= (car a) (car b)) (= (car a) 1))
                  (loop (cdr a) (cdr b)))))))

(define (%at-most-one-optional who opt what)
  (if (> (length opt) 1)
      (error (string-append who ": at most 1 optional argument (" what "), got " (number->string (length opt))))))

;; (linear X W [B]) = X W + B: W is IN x OUT (as he-normal and glorot-uniform shape a
;; weight; PyTorch's nn.Linear keeps OUT x IN), X is (... IN), B broadcasts to (... OUT).
(define (linear x w . opt)
  (%at-most-one-optional "linear" opt "B")
  (let ((xs (%shape-of "linear" 1 x))
        (ws (%shape-of "linear" 2 w)))
    (if (not (= (length ws) 2))
        (error (string-append "linear: W must be a rank-2 tensor (IN x OUT), got shape " (%shape-string ws))))
    (if (null? xs)
        (error "linear: X must be a tensor whose last axis is W's IN, got a number or scalar"))
    (if (not (= (last xs) (car ws)))
        (error (string-append "linear: X's last axis and W's rows (IN) differ: X is " (%shape-string xs)
                              ", W is " (%shape-string ws))))
    (let ((y (matmul x w)))
      (if (null? opt)
          y
          (let ((bs (%shape-of "linear" 3 (car opt)))
                (ys (append (reverse (cdr (reverse xs))) (list (cadr ws)))))
            (if (not (%broadcasts-to? bs ys))
                (error (string-append "linear: B of shape " (%shape-string bs)
                                      " does not broadcast to the output's shape " (%shape-string ys))))
            (+ y (car opt)))))))

;; (layer-norm X GAMMA BETA [EPS]) over X's last axis, as torch.nn.functional.layer_norm:
;; (X - mean) / sqrt(var + EPS) * GAMMA + BETA, mean and the population variance (the
;; mean of squared deviations) each a tensor-mean along the last axis; EPS 1e-5.
;; GAMMA and BETA are numbers or tensors of the last axis' length.
(define (layer-norm x gamma beta . opt)
  (%at-most-one-optional "layer-norm" opt "EPS")
  (let ((xs (%shape-of "layer-norm" 1 x))
        (eps (if (null? opt) 1e-5 (car opt))))
    (if (null? xs)
        (error "layer-norm: X must be a tensor of rank 1 or more (normalised over its last axis), got a number or scalar"))
    (if (not (and (real? eps) (>= eps 0)))
        (error "layer-norm: EPS must be a real number >= 0, got" eps))
    (for-each (lambda (name pos p)
                (let ((ps (%shape-of "layer-norm" pos p)))
                  (if (not (or (null? ps) (equal? ps (list (last xs)))))
                      (error (string-append "layer-norm: " name " must be a number or a tensor of shape "
                                            (number->string (last xs)) " (X's last axis; X is " (%shape-string xs)
                                            "), got shape " (%shape-string ps))))))
              '("GAMMA" "BETA") '(2 3) (list gamma beta))
    (let* ((dev (- x (tensor-mean x -1 #t)))
           (var (tensor-mean (square dev) -1 #t)))
      (+ (* (/ dev (sqrt (+ var eps))) gamma) beta))))

;; (attention Q K V [MASK]) = softmax(Q Kᵀ / sqrt(d) + MASK) V on the last two axes, d
;; being Q's last axis: Q is (... TQ d), K (... TK d), V (... TK DV); leading axes go
;; to matmul (which broadcasts them); MASK broadcasts to the scores' shape (... TQ TK)
;; and is added before the softmax (-inf hides a key, as causal-mask does).
(define (attention q k v . opt)
  (%at-most-one-optional "attention" opt "MASK")
  (let ((qs (%shape-of "attention" 1 q))
        (ks (%shape-of "attention" 2 k))
        (vs (%shape-of "attention" 3 v)))
    (for-each (lambda (name s)
                (if (< (length s) 2)
                    (error (string-append "attention: " name " must be a tensor of rank 2 or more (... rows x features), got shape "
                                          (%shape-string s)))))
              '("Q" "K" "V") (list qs ks vs))
    (if (not (= (last qs) (last ks)))
        (error (string-append "attention: Q and K must have the same last axis (d): Q is " (%shape-string qs)
                              ", K is " (%shape-string ks))))
    (let ((tk (lambda (s) (list-ref s (- (length s) 2)))))
      (if (not (= (tk ks) (tk vs)))
          (error (string-append "attention: K and V must have as many rows (keys): K is " (%shape-string ks)
                                ", V is " (%shape-string vs)))))
    (let* ((r (length ks))
           (kt (transpose k (append (iota (- r 2)) (list (- r 1) (- r 2)))))
           (scores (/ (matmul q kt) (sqrt (inexact (last qs))))))
      (if (pair? opt)
          (let ((ms (%shape-of "attention" 4 (car opt)))
                (ss (%shape-of "attention" 1 scores)))
            (if (not (%broadcasts-to? ms ss))
                (error (string-append "attention: MASK of shape " (%shape-string ms)
                                      " does not broadcast to the scores' shape " (%shape-string ss)
                                      " (Q's rows x K's rows)")))
            (set! scores (+ scores (car opt)))))
      (matmul (softmax scores) v))))

;; (causal-mask T): T x T, 0.0 on and below the diagonal, -inf above (key j is hidden
;; from query i when j > i). A concrete tensor, so a constant inside a trace.
(define (causal-mask n)
  (if (not (and (exact-integer? n) (> n 0)))
      (error "causal-mask: T must be a positive exact integer, got" n))
  (let ((i (reshape (arange n) (list n 1)))
        (j (reshape (arange n) (list 1 n))))
    (tensor-where (relu (- j i)) -inf.0 0.0)))

;;; training.lisp — the training library written in Kiln itself (SPEC §13, docs/training.md).
;;; Embedded into the kiln binary at build time after the prelude (stdlib/embed.cmake).
;;; Everything here uses only generic arithmetic on the leaves, never an `if` on a
;;; leaf's value, so the same code runs eagerly and on symbolic values inside `jit`,
;;; `graph-eval` and `graph-grad`; the results agree bit for bit.

;;; ---- Trees -----------------------------------------------------------------
;;; A tree is a number, a tensor, or a proper list or vector of trees (docs/graph.md,
;;; "Trees"). Anything that is not a list or vector is a leaf here, so symbolic values
;;; (for which number? and tensor? are #f) are leaves too.

;; Maps F over corresponding leaves of TREES. Errors name the caller WHO and say
;; what the trees are (WHAT, such as "PARAMS and GRADS").
(define (%tree-map who what f trees)
  (define (mismatch ts)
    (error (string-append who ": " what " differ in structure: " (%write-to-string (car ts))
                          (apply string-append
                                 (map (lambda (t) (string-append " and " (%write-to-string t))) (cdr ts))))))
  (let walk ((ts trees))
    (let ((t (car ts)))
      (cond ((or (pair? t) (null? t))
             (if (not (list? t))
                 (error (string-append who ": a tree cannot be an improper or circular list:") t))
             (let ((n (length t)))
               (for-each (lambda (u) (if (not (and (list? u) (= (length u) n))) (mismatch ts))) (cdr ts))
               (apply map (lambda leaves (walk leaves)) ts)))
            ((vector? t)
             (let ((n (vector-length t)))
               (for-each (lambda (u) (if (not (and (vector? u) (= (vector-length u) n))) (mismatch ts))) (cdr ts))
               (list->vector (apply map (lambda leaves (walk leaves)) (map vector->list ts)))))
            (else
             (for-each (lambda (u) (if (or (pair? u) (null? u) (vector? u)) (mismatch ts))) (cdr ts))
             (apply f ts))))))

(define (tree-map f tree . trees)
  (%tree-map "tree-map" "the trees" f (cons tree trees)))

;; Checks that two trees have the same structure and their leaves the same kind and
;; shape, so an optimiser's error names it rather than the arithmetic inside it.
;; A concrete number against a symbolic value is let through: its kind is unknown here.
(define (%check-like who what a b)
  (%tree-map who what
             (lambda (x y)
               (cond ((and (number? x) (number? y)) #t)
                     ((or (and (number? x) (tensor? y)) (and (tensor? x) (number? y)))
                      (error (string-append who ": " what " differ: a number and a tensor:") x y))
                     ((or (number? x) (number? y)) #t)
                     ((not (equal? (tensor-shape x) (tensor-shape y)))
                      (error (string-append who ": " what " have leaves of different shapes:")
                             (tensor-shape x) (tensor-shape y)))
                     (else #t)))
             (list a b))
  #t)

;; A zero of the leaf's kind: 0.0 for a number, a tensor of zeros of its shape.
;; Inside a trace a number leaf is symbolic and gets a rank-0 tensor (SPEC §13 asks
;; only that the init functions be called on concrete params).
(define (%zero-like x)
  (if (number? x) 0.0 (zeros (tensor-shape x))))

(define (%optional who opts defaults)
  (if (> (length opts) (length defaults))
      (error (string-append who ": at most " (number->string (length defaults))
                            " optional arguments, got " (number->string (length opts)))))
  (let fill ((o opts) (d defaults))
    (cond ((null? d) '())
          ((null? o) (cons (car d) (fill o (cdr d))))
          (else (cons (car o) (fill (cdr o) (cdr d)))))))

(define (%check-state who state n what)
  (if (not (and (list? state) (= (length state) n)))
      (error (string-append who ": STATE must be " what ", got") state)))

;;; ---- Optimisers ------------------------------------------------------------
;;; PyTorch's update formulas (torch.optim, foreach=False, float64), written in the
;;; same order of operations so the results match it to the last bits or nearly.
;;; A state is a list whose first element is the step count (a float, so a jitted
;;; step returns the same number the eager one does).

;; p <- p - lr*g   (torch: p.add_(g, alpha=-lr), the same IEEE result)
(define (sgd-step params grads lr)
  (%check-like "sgd-step" "PARAMS and GRADS" params grads)
  (%tree-map "sgd-step" "" (lambda (p g) (- p (* lr g))) (list params grads)))

;; STATE = (STEP BUFFERS).
(define (momentum-init params)
  (list 0.0 (%tree-map "momentum-init" "" %zero-like (list params))))

;; buf <- buf*mu + g;  p <- p - lr*buf
;; torch sets buf = g on the first step; from a zero buffer 0*mu + g is that g.
(define (momentum-step state params grads lr . opts)
  (%check-state "momentum-step" state 2 "(STEP BUFFERS) as momentum-init makes")
  (%check-like "momentum-step" "PARAMS and GRADS" params grads)
  (%check-like "momentum-step" "PARAMS and the STATE's buffers" params (cadr state))
  (let* ((mu (car (%optional "momentum-step" opts '(0.9))))
         (bufs (%tree-map "momentum-step" "" (lambda (b g) (+ (* b mu) g)) (list (cadr state) grads)))
         (new (%tree-map "momentum-step" "" (lambda (p b) (- p (* lr b))) (list params bufs))))
    (cons new (list (+ (car state) 1) bufs))))

;; STATE = (STEP M V).
(define (adam-init params)
  (let ((zero (lambda () (%tree-map "adam-init" "" %zero-like (list params)))))
    (list 0.0 (zero) (zero))))

;; As torch 1.13's _single_tensor_adam (amsgrad off, no weight decay), t = STEP + 1:
;;   m <- m*b1 + (1-b1)*g                        (mul_, add_ with alpha)
;;   v <- v*b2 + ((1-b2)*g)*g                    (mul_, addcmul_)
;;   step-size = lr / (1 - b1^t)
;;   denom = sqrt(v) / sqrt(1 - b2^t) + eps
;;   p <- p + ((-step-size)*m) / denom           (addcdiv_)
(define (adam-step state params grads lr . opts)
  (%check-state "adam-step" state 3 "(STEP M V) as adam-init makes")
  (%check-like "adam-step" "PARAMS and GRADS" params grads)
  (%check-like "adam-step" "PARAMS and the STATE's first moments" params (cadr state))
  (%check-like "adam-step" "PARAMS and the STATE's second moments" params (caddr state))
  (let* ((o (%optional "adam-step" opts '(0.9 0.999 1e-8)))
         (b1 (car o)) (b2 (cadr o)) (eps (caddr o))
         (t (+ (car state) 1))
         (m (%tree-map "adam-step" "" (lambda (m g) (+ (* m b1) (* (- 1 b1) g)))
                       (list (cadr state) grads)))
         (v (%tree-map "adam-step" "" (lambda (v g) (+ (* v b2) (* (* (- 1 b2) g) g)))
                       (list (caddr state) grads)))
         (neg-step-size (- (/ lr (- 1 (expt b1 t)))))
         (bc2-sqrt (sqrt (- 1 (expt b2 t))))
         (new (%tree-map "adam-step" ""
                         (lambda (p m v) (+ p (/ (* neg-step-size m) (+ (/ (sqrt v) bc2-sqrt) eps))))
                         (list params m v))))
    (cons new (list t m v))))

;;; ---- Ops ---------------------------------------------------------------------
;;; Composites of primitive ops (docs/adding-an-op.md): each records the nodes of
;;; the ops it calls, so it is bit-identical eagerly, in graph-eval and in compiled
;;; kernels, and its gradient is the chain rule through them. The primitives these
;;; use (tensor-take, %one-hot, tensor-where, stop-gradient) and the other ops of
;;; SPEC §13 are C++ builtins (stdlib/tensor_select.cpp, training_ops.cpp); the
;;; %-helpers there check arguments, so errors name the op called.

;; (one-hot LABELS N): the rows of the N x N identity at LABELS (%one-hot; traced,
;; a mask and a tensor-take that checks the labels, its errors naming one-hot).
(define (one-hot labels n) (%one-hot "one-hot" labels n))

;; x - max(x) along AXIS, the max taken out of the gradient: softmax does not
;; depend on it, and without stop-gradient its gradient would be a rounding residue
;; sent to the largest element.
(define (%shifted who x axis)
  (let ((a (%tensor-axis who x (if (null? axis) #f (car axis)))))
    (cons a (- x (stop-gradient (tensor-max x a #t))))))

(define (softmax x . axis)
  (let* ((s (%shifted "softmax" x axis))
         (e (exp (cdr s))))
    (/ e (tensor-sum e (car s) #t))))

(define (log-softmax x . axis)
  (let ((s (%shifted "log-softmax" x axis)))
    (- (cdr s) (log (tensor-sum (exp (cdr s)) (car s) #t)))))

;; The mean over rows of -sum(target * log-softmax(LOGITS)). With class indices the
;; picked entries are selected rather than multiplied by a one-hot row, so an entry
;; of -inf elsewhere in the row cannot make 0 * -inf = NaN.
(define (cross-entropy logits labels)
  (let ((kind (%cross-entropy-labels logits labels))
        (lsm (log-softmax logits 1)))
    (- (tensor-mean
        (tensor-sum (if (eq? kind 'rows)
                        (* labels lsm)
                        (tensor-where (%one-hot "cross-entropy" labels (cadr (tensor-shape logits)))
                                      lsm 0.0))
                    1)))))

(define (mse a b)
  (%check-same-shape "mse" a b)
  (tensor-mean (square (- a b))))

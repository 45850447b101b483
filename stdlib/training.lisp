;;; training.lisp — the training library written in Kiln itself (SPEC §13, docs/training.md).
;;; Embedded into the kiln binary at build time after the prelude (stdlib/embed.cmake).
;;; Everything here uses only generic arithmetic on the leaves, never an `if` on a
;;; leaf's value, so the same code runs eagerly and on symbolic values inside `jit`,
;;; `graph-eval` and `graph-grad`; the results agree bit for bit.

;;; ---- Trees -----------------------------------------------------------------
;;; A tree is a number, a tensor, a proper list or vector of trees, or an association
;;; list of named trees, ((KEY . TREE) ...) with distinct symbol KEYs (docs/graph.md,
;;; "Trees"; compiler/tree.cpp applies the same rules to the arguments of grad and jit).
;;; Keys are structure, never leaves: a list is named when its first element is a
;;; (SYMBOL . ...) pair, and then every element must be one. Anything that is not a
;;; list or vector is a leaf here, so symbolic values (for which number? and tensor?
;;; are #f) are leaves too.

(define (%entry? x) (and (pair? x) (symbol? (car x))))
(define (%named? t) (and (pair? t) (%entry? (car t))))
(define (%branch? t) (or (pair? t) (null? t) (vector? t)))

(define (%keys->string keys)
  (%write-to-string keys))

;; Checks list T (proper; all entries with distinct keys, or none); #t when named.
(define (%check-list who t)
  (if (not (list? t))
      (error (string-append who ": a tree cannot be an improper or circular list:") t))
  (cond ((%named? t)
         (let loop ((es t) (i 1) (seen '()))
           (cond ((null? es) #t)
                 ((not (%entry? (car es)))
                  (error (string-append who ": entry " (number->string i)
                                        " of an association list must be (KEY . TREE) with a symbol KEY, got")
                         (car es)))
                 ((memq (caar es) seen)
                  (error (string-append who ": the key " (symbol->string (caar es))
                                        " appears twice in an association list")))
                 (else (loop (cdr es) (+ i 1) (cons (caar es) seen))))))
        ((any %entry? t)
         (error (string-append who ": a list mixes (KEY . TREE) entries with other trees:") t))
        (else #f)))

;; What a tree is, for messages: "an association list with keys (w b)", "a list of 2
;; trees", "a vector of 3 trees", or the leaf itself.
(define (%describe-tree t)
  (cond ((%named? t) (string-append "an association list with keys " (%keys->string (map car t))))
        ((list? t) (string-append "a list of " (number->string (length t)) " trees"))
        ((vector? t) (string-append "a vector of " (number->string (vector-length t)) " trees"))
        (else (string-append "a leaf, " (%write-to-string t)))))

;; Maps F over corresponding leaves of TREES. Errors name the caller WHO and say
;; what the trees are (WHAT, such as "PARAMS and GRADS").
(define (%tree-map who what f trees)
  (define (mismatch ts)
    (error (string-append who ": " what " differ in structure: " (%write-to-string (car ts))
                          (apply string-append
                                 (map (lambda (t) (string-append " and " (%write-to-string t))) (cdr ts))))))
  (define (key-mismatch ts)
    (error (string-append who ": " what " differ in keys: " (%keys->string (map car (car ts)))
                          (apply string-append
                                 (map (lambda (t) (string-append " and " (%keys->string (map car t))))
                                      (cdr ts))))))
  (let walk ((ts trees))
    (let ((t (car ts)))
      (cond ((%entry? t)
             (error (string-append who ": a (KEY . TREE) entry must be an element of an association list, got")
                    t))
            ((or (pair? t) (null? t))
             (let ((named (%check-list who t))
                   (n (length t)))
               (for-each (lambda (u) (if (not (and (list? u) (= (length u) n) (eq? (%named? u) named)))
                                         (mismatch ts)))
                         (cdr ts))
               (if named
                   (begin
                     (for-each (lambda (u) (%check-list who u)
                                 (if (not (equal? (map car u) (map car t))) (key-mismatch ts)))
                               (cdr ts))
                     (apply map (lambda entries (cons (caar entries) (walk (map cdr entries)))) ts))
                   (begin
                     (for-each (lambda (u) (%check-list who u)) (cdr ts))
                     (apply map (lambda leaves (walk leaves)) ts)))))
            ((vector? t)
             (let ((n (vector-length t)))
               (for-each (lambda (u) (if (not (and (vector? u) (= (vector-length u) n))) (mismatch ts))) (cdr ts))
               (list->vector (apply map (lambda leaves (walk leaves)) (map vector->list ts)))))
            (else
             (for-each (lambda (u) (if (%branch? u) (mismatch ts))) (cdr ts))
             (apply f ts))))))

(define (tree-map f tree . trees)
  (%tree-map "tree-map" "the trees" f (cons tree trees)))

;; The leaves, depth-first and left to right: the order grad and jit number them.
(define (tree-leaves tree)
  (let ((out '()))
    (%tree-map "tree-leaves" "" (lambda (x) (set! out (cons x out)) x) (list tree))
    (reverse out)))

;; (F ACC LEAF) over the leaves in tree-leaves order, from INIT (as JAX's tree_reduce).
(define (tree-reduce f init tree)
  (let loop ((acc init) (leaves (tree-leaves tree)))
    (if (null? leaves) acc (loop (f acc (car leaves)) (cdr leaves)))))

;; (tree-ref TREE STEP ...): follows each STEP, a symbol key into an association
;; list or an index into a list or vector.
(define (tree-ref tree . path)
  (define (fail msg) (error (string-append "tree-ref: " msg)))
  (let follow ((t tree) (p path))
    (if (null? p)
        t
        (let ((step (car p)))
          (cond ((symbol? step)
                 (if (not (%named? t))
                     (fail (string-append "cannot follow the key " (symbol->string step) " into "
                                          (%describe-tree t) ", which is not an association list")))
                 (%check-list "tree-ref" t)
                 (let ((e (assq step t)))
                   (if (not e)
                       (fail (string-append "no key " (symbol->string step) " in "
                                            (%describe-tree t))))
                   (follow (cdr e) (cdr p))))
                ((and (exact-integer? step) (>= step 0))
                 (cond ((%named? t)
                        (fail (string-append (%describe-tree t) " is followed by key, not by index "
                                             (number->string step))))
                       ((list? t)
                        (if (>= step (length t))
                            (fail (string-append "index " (number->string step) " is out of range for "
                                                 (%describe-tree t))))
                        (follow (list-ref t step) (cdr p)))
                       ((vector? t)
                        (if (>= step (vector-length t))
                            (fail (string-append "index " (number->string step) " is out of range for "
                                                 (%describe-tree t))))
                        (follow (vector-ref t step) (cdr p)))
                       (else (fail (string-append "cannot follow the index " (number->string step) " into "
                                                  (%describe-tree t))))))
                (else (fail (string-append "a step must be a symbol key or an index (an exact integer >= 0), got "
                                           (%write-to-string step)))))))))

;; sqrt of the sum of every leaf's squared elements, leaves in order from 0.0 (optax's
;; global_norm; PyTorch's clip_grad_norm_ takes the norm of per-tensor norms, which
;; differs only in rounding).
(define (global-norm tree)
  (sqrt (tree-reduce (lambda (acc x)
                       (%shape-of "global-norm" 1 x)  ; a leaf that is no number or tensor: its error
                       (+ acc (tensor-sum (square x))))
                     0.0 tree)))

;; Every leaf times MAX / max(norm, MAX): unchanged (times exactly 1.0) when the
;; global norm is at most MAX, else scaled to norm MAX (optax's clip_by_global_norm).
;; A maximum rather than an `if`, so a traced norm needs no branch.
(define (clip-by-global-norm tree max-norm)
  (if (and (number? max-norm) (not (and (real? max-norm) (finite? max-norm) (> max-norm 0))))
      (error "clip-by-global-norm: MAX must be a positive finite number, got" max-norm))
  (let ((scale (/ max-norm (max (global-norm tree) max-norm))))
    (%tree-map "clip-by-global-norm" "" (lambda (x) (* x scale)) (list tree))))

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

;; As torch 1.13's _single_tensor_adamw (amsgrad off): adam-step's update after the
;; decoupled weight decay p <- p*(1 - lr*wd) (param.mul_), on adam-init's state.
;; WD defaults to PyTorch's 0.01; a tree of numbers shaped like PARAMS gives each leaf
;; its own (PyTorch's parameter groups: 0.0 for the biases and norms, say).
(define (adamw-step state params grads lr . opts)
  (%check-state "adamw-step" state 3 "(STEP M V) as adam-init makes")
  (%check-like "adamw-step" "PARAMS and GRADS" params grads)
  (%check-like "adamw-step" "PARAMS and the STATE's first moments" params (cadr state))
  (%check-like "adamw-step" "PARAMS and the STATE's second moments" params (caddr state))
  (let* ((o (%optional "adamw-step" opts '(0.9 0.999 1e-8 0.01)))
         (b1 (car o)) (b2 (cadr o)) (eps (caddr o)) (wd (cadddr o))
         (t (+ (car state) 1))
         (decays (if (%branch? wd)
                     (%tree-map "adamw-step" "PARAMS and WD" (lambda (p w) (- 1 (* lr w))) (list params wd))
                     (%tree-map "adamw-step" "" (lambda (p) (- 1 (* lr wd))) (list params))))
         (m (%tree-map "adamw-step" "" (lambda (m g) (+ (* m b1) (* (- 1 b1) g)))
                       (list (cadr state) grads)))
         (v (%tree-map "adamw-step" "" (lambda (v g) (+ (* v b2) (* (* (- 1 b2) g) g)))
                       (list (caddr state) grads)))
         (neg-step-size (- (/ lr (- 1 (expt b1 t)))))
         (bc2-sqrt (sqrt (- 1 (expt b2 t))))
         (new (%tree-map "adamw-step" ""
                         (lambda (p m v decay)
                           (+ (* p decay) (/ (* neg-step-size m) (+ (/ (sqrt v) bc2-sqrt) eps))))
                         (list params m v decays))))
    (cons new (list t m v))))

;;; ---- Schedules -----------------------------------------------------------------

;; (cosine-schedule BASE STEPS [WARMUP]) -> the learning rate of step S (from 0):
;; BASE*S/WARMUP while S < WARMUP, then BASE*(1 + cos(pi*P))/2 with P = (S-WARMUP)/(STEPS-WARMUP)
;; clamped to [0, 1], so 0 from step STEPS on (optax's warmup_cosine_decay_schedule
;; from 0 to 0). No branch on S: min and max clamp, and the warm-up factor is exactly
;; 1.0 once S >= WARMUP, so a traced S (a jitted step's argument) gives the same bits.
(define (cosine-schedule base steps . opt)
  (define (fail what x) (error (string-append "cosine-schedule: " what ", got") x))
  (if (> (length opt) 1) (fail "at most 1 optional argument (WARMUP)" opt))
  (let ((warmup (if (null? opt) 0 (car opt))))
    (if (not (and (real? base) (finite? base))) (fail "BASE must be a finite real number" base))
    (if (not (and (exact-integer? steps) (> steps 0))) (fail "STEPS must be a positive exact integer" steps))
    (if (not (and (exact-integer? warmup) (>= warmup 0) (< warmup steps)))
        (fail (string-append "WARMUP must be an exact integer in [0, STEPS) = [0, " (number->string steps) ")")
              warmup))
    (let ((base (inexact base))
          (w (inexact warmup))
          (span (inexact (- steps warmup)))
          (pi (* 4.0 (atan 1.0))))
      (lambda (s)
        (%shape-of "cosine-schedule's procedure" 1 s)  ; a number, a tensor of them or a traced value
        (if (and (number? s) (not (and (real? s) (>= s 0))))
            (error "cosine-schedule's procedure: the step must be a real number >= 0, got" s))
        (let* ((s (if (number? s) (inexact s) s))
               (p (min (max (/ (- s w) span) 0.0) 1.0))
               (decay (* 0.5 (+ 1.0 (cos (* pi p))))))
          (if (= warmup 0)
              (* base decay)
              (* base (* (min (/ s w) 1.0) decay))))))))

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

;; cnn_digits.lisp — a small convolutional network learns scikit-learn's 8x8 digits.
;;
;;     kiln examples/cnn_digits.lisp DIGITS.csv.gz [OUT-DIR] [--epochs N] [--export DIR]
;;
;; DIGITS.csv.gz is the data set Debian's python3-sklearn ships:
;;     /usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
;; (1797 rows: 64 pixel values 0..16, then the digit). Nothing is downloaded.
;;
;; The network, as one would write it in PyTorch:
;;     conv 1->8 3x3 padding 1, relu, max-pool 2     8x8 -> 8 x 4x4
;;     conv 8->16 3x3 padding 1, relu, max-pool 2    -> 16 x 2x2
;;     flatten, linear 64 -> 10, cross-entropy
;; trained with Adam on minibatches of 32. The parameters are one tree,
;; ((W1 b1) (W2 b2) (W3 b3)), with the convolution weights in PyTorch's O x C x KH x KW
;; layout; a whole training step (forward, loss, `grad`, Adam) is one `jit` procedure,
;; so each minibatch runs one native kernel. The held-out fifth gives the test
;; accuracy. `--export DIR` writes the split, the initial weights and every epoch's
;; minibatch order as .npy files and prints every step's loss, for
;; benchmarks/cnn_digits/ to train the same network the same way in PyTorch.

(define (usage)
  (display "usage: kiln examples/cnn_digits.lisp DIGITS.csv.gz [OUT-DIR] [--epochs N] [--export DIR]\n"
           (current-error-port))
  (display "  (python3-sklearn's file: /usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz)\n"
           (current-error-port))
  (exit 2))

(define (parse-args args positional options)
  (cond ((null? args) (cons (reverse positional) options))
        ((and (member (car args) '("--epochs" "--export")) (pair? (cdr args)))
         (parse-args (cddr args) positional (cons (cons (car args) (cadr args)) options)))
        ((and (> (string-length (car args)) 1) (char=? (string-ref (car args) 0) #\-)) (usage))
        (else (parse-args (cdr args) (cons (car args) positional) options))))
(define parsed (parse-args (cdr (command-line)) '() '()))
(define (option name default)
  (let ((o (assoc name (cdr parsed)))) (if o (cdr o) default)))
(when (or (null? (car parsed)) (> (length (car parsed)) 2)) (usage))
(define data-path (car (car parsed)))
(define out-dir (if (pair? (cdr (car parsed))) (cadr (car parsed)) "."))
(define epochs (let ((n (string->number (option "--epochs" "15"))))
                 (if (and n (exact-integer? n) (> n 0)) n (usage))))
(define export-dir (option "--export" #f))
(define (out-path name) (string-append out-dir "/" name))

;; ---- data -------------------------------------------------------------------------
(define data (read-csv data-path))                  ; 1797 x 65
(define n (car (tensor-shape data)))
;; images N x 1 x 8 x 8 in [0, 1]
(define images (reshape (tensor-mul (tensor-slice data 1 0 64) (/ 1.0 16)) (list n 1 8 8)))
(define digits (reshape (tensor-slice data 1 64 65) (list n)))
;; A fixed 80/20 split: the first 80% of one seeded permutation train.
(define order (random-permutation n 2026))
(define n-train (exact (floor (* 0.8 n))))
(define train-rows (take order n-train))
(define test-rows (drop order n-train))
(define x-train (tensor-take images train-rows))
(define y-train (tensor-take digits train-rows))
(define x-test (tensor-take images test-rows))
(define y-test (tensor-take digits test-rows))

;; ---- model ------------------------------------------------------------------------
;; PyTorch's default initialisation of Conv2d and Linear: weights and biases uniform
;; in [-1/sqrt(fan-in), 1/sqrt(fan-in)).
(define (uniform shape fan-in seed)
  (tensor-mul (tensor-sub (tensor-mul (tensor-rand shape seed) 2.0) 1.0) (/ 1.0 (sqrt fan-in))))
(define initial-params
  (list (list (uniform '(8 1 3 3) 9 1) (uniform '(8) 9 2))
        (list (uniform '(16 8 3 3) 72 3) (uniform '(16) 72 4))
        (list (uniform '(64 10) 64 5) (uniform '(10) 64 6))))

(define (conv-relu-pool x layer)
  (let ((w (car layer)) (b (cadr layer)))
    (max-pool2d (relu (+ (conv2d x w 1 1) (reshape b (list 1 (tensor-size b) 1 1)))) 2)))
(define (forward params x)
  (let* ((h (conv-relu-pool (conv-relu-pool x (car params)) (cadr params)))
         (flat (reshape h (list (car (tensor-shape h)) 64)))
         (out (caddr params)))
    (+ (matmul flat (car out)) (cadr out))))
(define (loss params x y) (cross-entropy (forward params x) y))

(define learning-rate 0.01)
(define batch-size 32)
;; One step: the loss, its gradient with respect to the parameters only, and Adam's
;; update; returns (NEW-PARAMS NEW-STATE LOSS).
(define train-step
  (jit (lambda (params state x y)
         (let* ((r ((grad loss 0) params x y))
                (u (adam-step state params (cadr r) learning-rate)))
           (list (car u) (cdr u) (car r))))))

(define (accuracy params x y)
  (let ((hits (map (lambda (p t) (if (= p t) 1 0))
                   (tensor->list (tensor-argmax (forward params x)))
                   (tensor->list y))))
    (/ (apply + hits) (exact->inexact (length hits)))))

;; ---- export for benchmarks/cnn_digits ------------------------------------------------
(define (epoch-batches epoch) (minibatches n-train batch-size (+ 100 epoch)))
(when export-dir
  (save-npy (string-append export-dir "/x-train.npy") x-train)
  (save-npy (string-append export-dir "/y-train.npy") y-train)
  (save-npy (string-append export-dir "/x-test.npy") x-test)
  (save-npy (string-append export-dir "/y-test.npy") y-test)
  (let loop ((ps (apply append initial-params)) (i 0))
    (unless (null? ps)
      (save-npy (string-append export-dir "/param-" (number->string i) ".npy") (car ps))
      (loop (cdr ps) (+ i 1))))
  (save-npy (string-append export-dir "/batches.npy")
            (tensor (map (lambda (e) (apply append (epoch-batches e))) (iota epochs))))
  (call-with-output-file (string-append export-dir "/meta.json")
    (lambda (p)
      (display (format "{\"params\": 6, \"lr\": ~a, \"batch\": ~a, \"epochs\": ~a}\n"
                       learning-rate batch-size epochs) p))))

;; ---- training ---------------------------------------------------------------------
(define batches-per-epoch (length (epoch-batches 0)))
(define (train)
  (with-progress (* epochs batches-per-epoch) "cnn digits"
    (lambda (tick)
      (let epoch-loop ((epoch 0) (params initial-params) (state (adam-init initial-params))
                       (curve '()))
        (if (= epoch epochs)
            (cons params (reverse curve))
            (let ((t0 (current-jiffy)))
              (let batch-loop ((batches (epoch-batches epoch)) (params params) (state state)
                               (total 0.0) (count 0))
                (if (null? batches)
                    (let ((mean (/ total count))
                          (seconds (/ (- (current-jiffy) t0) (exact->inexact (jiffies-per-second)))))
                      (when export-dir
                        (display (format "epoch ~a loss ~a seconds ~,6f~%" (+ epoch 1) mean seconds)))
                      (epoch-loop (+ epoch 1) params state (cons mean curve)))
                    (let* ((rows (car batches))
                           (r (train-step params state (tensor-take x-train rows) (tensor-take y-train rows))))
                      (when export-dir (display (format "step ~a~%" (caddr r))))
                      (tick (format "loss ~,4f" (caddr r)))
                      (batch-loop (cdr batches) (car r) (cadr r) (+ total (caddr r)) (+ count 1)))))))))))

(define result (train))
(define params (car result))
(define curve (cdr result))

(if export-dir
    (begin
      (display (format "final-loss ~a~%" (loss params x-train y-train)))
      (display (format "test-accuracy ~,6f~%" (accuracy params x-test y-test))))
    (begin
      (display (format "~a epochs of ~a minibatches of ~a (Adam, lr ~a)~%"
                       epochs batches-per-epoch batch-size learning-rate))
      (plot (cons "training loss" curve) "cnn digits: mean loss per epoch")
      (save-model (out-path "cnn-digits-model.kiln") params)
      (display (format "final training loss ~,6f~%" (loss params x-train y-train)))
      (display (format "test accuracy ~,2f% on ~a held-out digits~%"
                       (* 100 (accuracy params x-test y-test)) (- n n-train)))
      (display (format "wrote ~a~%" (out-path "cnn-digits-model.kiln")))))

;; char_transformer.lisp — a small character-level transformer learns a text.
;;
;;     kiln examples/char_transformer.lisp TEXT-FILE [--steps N] [--batch N]
;;          [--sample N] [--dropout RATE] [--export DIR]
;;
;; TEXT-FILE is any plain text; Debian ships several, e.g.
;;     /usr/share/common-licenses/GPL-3      (35 kB)
;; Nothing is downloaded.
;;
;; The model, as one would write it in PyTorch (a GPT in miniature):
;;     token embedding (a table, `tensor-take` of its rows) + learned position embedding
;;     2 pre-norm blocks:  x + attn(layer-norm(x)),  x + mlp(layer-norm(x))
;;         attn: 4 heads of causal attention, d_model 64, then an output projection
;;         mlp:  linear 64 -> 256, GELU, linear 256 -> 64
;;     layer-norm, linear 64 -> vocabulary, cross-entropy on the next character
;; with context 64 and dropout 0.1 (on the embeddings and on each residual branch) while
;; training. The parameters are one named tree (association lists); a whole training
;; step (forward, loss, `grad`, AdamW with a cosine learning-rate schedule) is one `jit`
;; procedure, so each minibatch runs one native kernel. Each step passes its own random
;; key as an argument, so the dropout masks differ from step to step.
;; At the end it plots the loss curve and samples a paragraph, character by character,
;; from the trained model (temperature 0.8), after 64 characters from the text's middle.
;; `--export DIR` writes the text as indices, the initial weights and every step's batch
;; offsets as .npy files and prints every step's loss, for benchmarks/char_transformer/
;; to train the same network the same way in PyTorch (run it with --dropout 0 for that).

(define (usage)
  (display "usage: kiln examples/char_transformer.lisp TEXT-FILE [--steps N] [--batch N] [--sample N] [--dropout RATE] [--export DIR]\n"
           (current-error-port))
  (display "  (for example /usr/share/common-licenses/GPL-3)\n" (current-error-port))
  (exit 2))

(define (parse-args args positional options)
  (cond ((null? args) (cons (reverse positional) options))
        ((and (member (car args) '("--steps" "--batch" "--sample" "--dropout" "--export")) (pair? (cdr args)))
         (parse-args (cddr args) positional (cons (cons (car args) (cadr args)) options)))
        ((and (> (string-length (car args)) 1) (char=? (string-ref (car args) 0) #\-)) (usage))
        (else (parse-args (cdr args) (cons (car args) positional) options))))
(define parsed (parse-args (cdr (command-line)) '() '()))
(define (option name default)
  (let ((o (assoc name (cdr parsed)))) (if o (cdr o) default)))
(define (count-option name default)
  (let ((n (string->number (option name default))))
    (if (and n (exact-integer? n) (> n 0)) n (usage))))
(unless (= (length (car parsed)) 1) (usage))
(define text-path (car (car parsed)))
(define steps (count-option "--steps" "1000"))
(define batch-size (count-option "--batch" "32"))
(define sample-length (count-option "--sample" "400"))
(define dropout-rate (let ((r (string->number (option "--dropout" "0.1"))))
                       (if (and r (real? r) (>= r 0) (< r 1)) (inexact r) (usage))))
(define export-dir (option "--export" #f))

;; ---- data -------------------------------------------------------------------------
(define d-model 64)
(define context 64)
(define heads 4)
(define head-size (quotient d-model heads))
(define layers 2)

(define text
  (let ((s (call-with-input-file text-path (lambda (p) (read-string 100000000 p)))))
    (if (or (eof-object? s) (<= (string-length s) (+ context 1)))
        (begin (display (format "char_transformer: ~a is shorter than ~a characters~%" text-path (+ context 2))
                        (current-error-port))
               (exit 1))
        s)))
;; The vocabulary: the distinct characters, in character order; a character's index is
;; its position there.
(define vocabulary
  (let loop ((cs (sort (string->list text) char<?)) (out '()))
    (cond ((null? cs) (list->vector (reverse out)))
          ((and (pair? out) (char=? (car cs) (car out))) (loop (cdr cs) out))
          (else (loop (cdr cs) (cons (car cs) out))))))
(define vocab-size (vector-length vocabulary))
(define char-index
  (let ((table (make-hash-table)))
    (let loop ((i 0))
      (when (< i vocab-size)
        (hash-table-set! table (vector-ref vocabulary i) i)
        (loop (+ i 1))))
    (lambda (c) (hash-table-ref table c))))
(define data (tensor (map char-index (string->list text))))   ; rank 1, the text as indices
(define n-chars (string-length text))

;; Step S's minibatch: BATCH windows of CONTEXT + 1 characters at offsets drawn from
;; tensor-rand with seed 1000 + S; X the first CONTEXT of each, Y the next character
;; at each position.
(define (batch-offsets s)
  (map (lambda (u) (exact (floor (* u (- n-chars context)))))
       (tensor->list (tensor-rand (list batch-size) (+ 1000 s)))))
(define positions (reshape (arange context) (list 1 context)))
(define (batch-at offsets)
  (let ((rows (+ (reshape (tensor offsets) (list (length offsets) 1)) positions)))
    (cons (tensor-take data rows) (tensor-take data (+ rows 1)))))

;; ---- model ------------------------------------------------------------------------
;; PyTorch's default initialisation of nn.Linear (uniform in +-1/sqrt(fan-in)) and
;; N(0, 1) embeddings scaled by 0.02, as GPT-2 does; layer-norm gains 1, shifts 0.
;; Weights are IN x OUT (linear's layout).
(define seed 0)
(define (next-seed!) (set! seed (+ seed 1)) seed)
(define (uniform shape fan-in)
  (tensor-mul (tensor-sub (tensor-mul (tensor-rand shape (next-seed!)) 2.0) 1.0) (/ 1.0 (sqrt fan-in))))
(define (normal shape scale) (tensor-mul (tensor-randn shape (next-seed!)) scale))
(define (dense in out) (list (cons 'w (uniform (list in out) in)) (cons 'b (uniform (list out) in))))
(define (norm) (list (cons 'gain (ones (list d-model)))
                     (cons 'shift (zeros (list d-model)))))
(define (block)
  (list (cons 'ln1 (norm))
        (cons 'query (uniform (list d-model d-model) d-model))
        (cons 'key (uniform (list d-model d-model) d-model))
        (cons 'value (uniform (list d-model d-model) d-model))
        (cons 'proj (dense d-model d-model))
        (cons 'ln2 (norm))
        (cons 'up (dense d-model (* 4 d-model)))
        (cons 'down (dense (* 4 d-model) d-model))))
(define initial-params
  (list (cons 'embed (normal (list vocab-size d-model) 0.02))
        (cons 'position (normal (list context d-model) 0.02))
        (cons 'blocks (map (lambda (i) (block)) (iota layers)))
        (cons 'ln-final (norm))
        (cons 'head (dense d-model vocab-size))))

(define (norm-apply p x) (layer-norm x (tree-ref p 'gain) (tree-ref p 'shift)))
(define (dense-apply p x) (linear x (tree-ref p 'w) (tree-ref p 'b)))

;; B x T x D -> B x H x T x D/H and back.
(define (split-heads x)
  (let ((s (tensor-shape x)))
    (transpose (reshape x (list (car s) (cadr s) heads head-size)) '(0 2 1 3))))
(define (merge-heads x)
  (let ((s (tensor-shape x)))
    (reshape (transpose x '(0 2 1 3)) (list (car s) (caddr s) d-model))))

(define (self-attention p x mask)
  (let ((q (split-heads (matmul x (tree-ref p 'query))))
        (k (split-heads (matmul x (tree-ref p 'key))))
        (v (split-heads (matmul x (tree-ref p 'value)))))
    (dense-apply (tree-ref p 'proj) (merge-heads (attention q k v mask)))))

(define (mlp p x)
  (dense-apply (tree-ref p 'down) (tensor-gelu (dense-apply (tree-ref p 'up) x))))

;; Logits B x T x V for indices X (B x T). RATE is the dropout rate (0 when not
;; training), KEY the step's random key: split into one key per dropout.
(define (forward params x rate key)
  (let* ((t (cadr (tensor-shape x)))
         (mask (causal-mask t))
         (blocks (tree-ref params 'blocks))
         (keys (random-split key (+ 1 (* 2 (length blocks)))))
         (h (dropout (+ (tensor-take (tree-ref params 'embed) x)
                        (tensor-slice (tree-ref params 'position) 0 0 t))
                     rate (car keys))))
    (let loop ((blocks blocks) (keys (cdr keys)) (h h))
      (if (null? blocks)
          (dense-apply (tree-ref params 'head) (norm-apply (tree-ref params 'ln-final) h))
          (let* ((p (car blocks))
                 (h (+ h (dropout (self-attention p (norm-apply (tree-ref p 'ln1) h) mask) rate (car keys))))
                 (h (+ h (dropout (mlp p (norm-apply (tree-ref p 'ln2) h)) rate (cadr keys)))))
            (loop (cdr blocks) (cddr keys) h))))))

(define (loss params x y rate key)
  (let ((logits (forward params x rate key))
        (n (* (car (tensor-shape x)) (cadr (tensor-shape x)))))
    (cross-entropy (reshape logits (list n vocab-size)) (reshape y (list n)))))

;; AdamW (decoupled weight decay 0.01) with a cosine learning-rate schedule from 3e-3
;; over the run, after 10% warm-up; the step number is the optimiser's own counter.
(define base-rate 3e-3)
(define warmup (quotient steps 10))
(define schedule (cosine-schedule base-rate steps warmup))
;; One step: the loss, its gradient with respect to the parameters only, and AdamW's
;; update; returns (NEW-PARAMS NEW-STATE LOSS). KEY is a number argument, so each call
;; gets fresh dropout masks from the one compiled kernel.
(define train-step
  (jit (lambda (params state x y key)
         (let* ((r ((grad (lambda (p) (loss p x y dropout-rate key))) params))
                (u (adamw-step state params (cadr r) (schedule (car state)))))
           (list (car u) (cdr u) (car r))))))

;; ---- export for benchmarks/char_transformer -------------------------------------------
(when export-dir
  (save-npy (string-append export-dir "/data.npy") data)
  (let loop ((ps (tree-leaves initial-params)) (i 0))
    (unless (null? ps)
      (save-npy (string-append export-dir "/param-" (number->string i) ".npy") (car ps))
      (loop (cdr ps) (+ i 1))))
  (save-npy (string-append export-dir "/offsets.npy")
            (tensor (map batch-offsets (iota steps))))
  (call-with-output-file (string-append export-dir "/meta.json")
    (lambda (p)
      (display (format "{\"params\": ~a, \"vocab\": ~a, \"d_model\": ~a, \"context\": ~a, \"heads\": ~a, \"layers\": ~a, \"lr\": ~a, \"warmup\": ~a, \"steps\": ~a, \"batch\": ~a, \"dropout\": ~a}\n"
                       (length (tree-leaves initial-params)) vocab-size d-model context heads layers
                       base-rate warmup steps batch-size dropout-rate)
               p))))

;; ---- training ---------------------------------------------------------------------
(define (train)
  (with-progress steps "char transformer"
    (lambda (tick)
      (let loop ((s 0) (params initial-params) (state (adam-init initial-params)) (curve '()))
        (if (= s steps)
            (cons params (reverse curve))
            (let* ((b (batch-at (batch-offsets s)))
                   (t0 (current-jiffy))
                   (r (train-step params state (car b) (cdr b) (+ 5000 s)))
                   (seconds (/ (- (current-jiffy) t0) 1e6)))
              (when export-dir (display (format "step ~a seconds ~,6f~%" (caddr r) seconds)))
              (tick (format "loss ~,4f" (caddr r)))
              (loop (+ s 1) (car r) (cadr r) (cons (caddr r) curve))))))))

(define result (train))
(define params (car result))
(define curve (cdr result))

;; ---- sampling ---------------------------------------------------------------------
;; The next character's probabilities from the last CONTEXT characters, with dropout
;; off. Eager: one small forward pass per character costs milliseconds, less than
;; compiling a kernel for it would.
(define temperature 0.8)
(define (next-probabilities params window)
  (let ((logits (forward params (reshape window (list 1 context)) 0.0 0)))
    (softmax (/ (reshape (tensor-slice logits 1 (- context 1) context) (list vocab-size))
                temperature))))
;; The first index whose cumulative probability exceeds U.
(define (pick probabilities u)
  (let loop ((ps probabilities) (i 0) (total 0.0))
    (let ((total (+ total (car ps))))
      (if (or (> total u) (null? (cdr ps))) i (loop (cdr ps) (+ i 1) total)))))
;; The prompt: the CONTEXT characters from the first line that starts in the text's
;; second half (a title or header at the top is rarely typical of the text).
(define prompt-start
  (let loop ((i (quotient n-chars 2)))
    (cond ((> (+ i context) n-chars) (- n-chars context))
          ((and (> i 0) (char=? (string-ref text (- i 1)) #\newline)) i)
          (else (loop (+ i 1))))))
(define prompt (substring text prompt-start (+ prompt-start context)))
(define (sample params n)
  (let ((start (reverse (map char-index (string->list prompt)))))
    (let loop ((i 0) (recent start) (out '()))
      (if (= i n)
          (list->string (map (lambda (k) (vector-ref vocabulary k)) (reverse out)))
          (let* ((window (tensor (reverse (take recent context))))
                 (u (car (tensor->list (tensor-rand '(1) (+ 90000 i)))))
                 (k (pick (tensor->list (next-probabilities params window)) u)))
            (loop (+ i 1) (cons k recent) (cons k out)))))))

(if export-dir
    (display (format "final-loss ~a~%" (last curve)))
    (begin
      (display (format "~a steps of ~a windows of ~a characters (AdamW, lr ~a cosine, dropout ~a); ~a characters, vocabulary ~a~%"
                       steps batch-size context base-rate dropout-rate n-chars vocab-size))
      (plot (cons "training loss" curve) "char transformer: loss per step")
      (display (format "first loss ~,4f, last loss ~,4f~%" (car curve) (last curve)))
      (display (format "sample (temperature ~a) after ~s:~%" temperature prompt))
      (display (sample params sample-length))
      (newline)))

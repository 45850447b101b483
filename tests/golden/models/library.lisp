;; The model building blocks of stdlib/models.lisp (SPEC §14): linear, layer-norm,
;; attention and causal-mask. Values checked by hand, eager = graph-eval = compiled =
;; jit bit for bit, gradients against central finite differences.
(define (paths f . args)
  (let ((e (apply f args)))
    (list (equal? e (apply graph-eval f args))
          (equal? e (apply (apply graph-compile f args) args))
          (equal? e (apply (jit f) args)))))
(define (grad-paths loss . args)
  (let ((g (apply graph-grad loss args)))
    (list (equal? g (apply (apply graph-compile-grad loss args) args))
          (equal? g (apply (grad loss) args))
          (equal? g (apply (jit (grad loss)) args)))))
(define (show x) (write (if (tensor? x) (list (tensor-shape x) (tensor->list x)) x)) (newline))

;; Central differences of LOSS with respect to every element of argument ARGNO,
;; against graph-grad's gradient: #t when every one agrees to 1e-6 relative.
(define (fd-agrees? loss args argno)
  (let* ((g (list-ref (cdr (apply graph-grad loss args)) argno))
         (x (list-ref args argno))
         (flat (tensor->list (reshape x (list (tensor-size x)))))
         (h 1e-6))
    (let loop ((i 0) (ok #t))
      (if (= i (length flat))
          ok
          (let* ((bump (lambda (d)
                         (let ((v (list-copy flat)))
                           (list-set! v i (+ (list-ref v i) d))
                           (reshape (tensor v) (tensor-shape x)))))
                 (with (lambda (xi) (let ((a (list-copy args))) (list-set! a argno xi) (apply loss a))))
                 (fd (/ (- (with (bump h)) (with (bump (- h)))) (* 2 h)))
                 (an (list-ref (tensor->list (reshape g (list (tensor-size g)))) i)))
            (loop (+ i 1) (and ok (<= (abs (- fd an)) (* 1e-6 (max 1.0 (abs an)))))))))))

;; ---- linear: X W + B, W as IN x OUT ----
(define x (tensor '((1.0 2.0) (3.0 -1.0) (0.5 0.0))))
(define w (tensor '((1.0 0.0 2.0) (-1.0 1.0 0.5))))
(define b (tensor '(0.25 -0.25 1.0)))
(show (linear x w b))
(show (linear x w))
(show (linear (tensor '(1.0 1.0)) w 1.0))
(write (paths linear x w b)) (newline)
(define (linear-loss x w b) (tensor-sum (square (linear x w b))))
(write (grad-paths linear-loss x w b)) (newline)
(write (map (lambda (i) (fd-agrees? linear-loss (list x w b) i)) '(0 1 2))) (newline)

;; ---- layer-norm over the last axis: population variance, EPS 1e-5 ----
;; Row (1 2 4): mean 7/3, variance 14/9, so (1-7/3)/sqrt(14/9+1e-5) = -1.0690...
(define z (tensor '((1.0 2.0 4.0) (0.0 0.0 3.0))))
(show (layer-norm z 1.0 0.0))
(show (layer-norm z (tensor '(1.0 2.0 3.0)) (tensor '(0.0 0.5 -0.5))))
(show (layer-norm z 1.0 0.0 0.0))
(show (tensor-mean (layer-norm (tensor-randn '(4 6) 3) 1.0 0.0) 1))
;; a constant row normalises to zeros (0 / sqrt(EPS)), not NaN
(show (layer-norm (tensor '(5.0 5.0 5.0)) 1.0 0.0))
(define zz (tensor-randn '(2 3 5) 4))
(define gamma (tensor-randn '(5) 5))
(define beta (tensor-randn '(5) 6))
(write (paths layer-norm zz gamma beta)) (newline)
(define (ln-loss x g b) (tensor-sum (* (layer-norm x g b) (tensor '(1.0 -2.0 3.0 0.5 1.5)))))
(write (grad-paths ln-loss zz gamma beta)) (newline)
(write (map (lambda (i) (fd-agrees? ln-loss (list zz gamma beta) i)) '(0 1 2))) (newline)

;; ---- causal-mask ----
(show (causal-mask 1))
(show (causal-mask 3))

;; ---- attention: softmax(Q Kᵀ / sqrt(d) + MASK) V ----
;; With Q = 0 every key weighs the same: each row is V's column means.
(define v (tensor '((1.0 2.0) (3.0 4.0) (5.0 9.0))))
(show (attention (zeros '(2 4)) (tensor-randn '(3 4) 7) v))
;; With the causal mask row i averages only the first i+1 rows of V (Q = 0 again).
(show (attention (zeros '(3 4)) (tensor-randn '(3 4) 7) v (causal-mask 3)))
;; One strongly matching key takes (nearly) all the weight.
(show (attention (tensor '((10.0 0.0))) (tensor '((10.0 0.0) (0.0 10.0))) (tensor '((1.0) (2.0)))))
;; by hand: Q K^T / sqrt 2 = ((1/sqrt 2)), softmax of one score is 1
(show (attention (tensor '((1.0 1.0))) (tensor '((0.5 0.5))) (tensor '((7.0 8.0)))))
;; a mask row broadcast over the queries
(show (attention (zeros '(2 2)) (zeros '(3 2)) v (tensor '(0.0 -inf.0 0.0))))
(define q (tensor-randn '(4 3) 8))
(define k (tensor-randn '(5 3) 9))
(define vv (tensor-randn '(5 2) 10))
(write (paths attention q k vv)) (newline)
(write (paths (lambda (q k v) (attention q k v (causal-mask 4))) q (tensor-slice k 0 0 4) (tensor-slice vv 0 0 4)))
(newline)
(define (att-loss q k v) (tensor-sum (* (attention q k v) (tensor '((1.0 -1.0) (2.0 0.5) (0.0 1.0) (-1.5 1.0))))))
(write (grad-paths att-loss q k vv)) (newline)
(write (map (lambda (i) (fd-agrees? att-loss (list q k vv) i)) '(0 1 2))) (newline)
(define (causal-loss q k v) (tensor-sum (square (attention q k v (causal-mask 4)))))
(define k4 (tensor-slice k 0 0 4))
(define v4 (tensor-slice vv 0 0 4))
(write (grad-paths causal-loss q k4 v4)) (newline)
(write (map (lambda (i) (fd-agrees? causal-loss (list q k4 v4) i)) '(0 1 2))) (newline)
;; the masked-out keys get no gradient: key 3 is seen only by query 3, which this loss leaves out
(show (cadr (graph-grad (lambda (k) (tensor-sum (tensor-slice (attention q k v4 (causal-mask 4)) 0 0 3))) k4)))

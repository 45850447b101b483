; The eager builtins add in docs/tensors.md's documented order: the same loops written
; in Lisp (plain float + and *, starting from 0.0) give bit-identical results.
; 80x64 . 64x64 is above the threading crossover, so row-parallel matmul is
; checked too.
(define (lisp-matmul a b)
  (let* ((m (car (tensor-shape a))) (k (cadr (tensor-shape a))) (n (cadr (tensor-shape b))))
    (tensor
     (map (lambda (i)
            (map (lambda (j)
                   (let loop ((kk 0) (acc 0.0))
                     (if (= kk k) acc
                         (loop (+ kk 1) (+ acc (* (tensor-ref a i kk) (tensor-ref b kk j)))))))
                 (iota n)))
          (iota m)))))
(define (lisp-sum-axis0 t)
  (let ((rows (car (tensor-shape t))) (cols (cadr (tensor-shape t))))
    (tensor (map (lambda (j)
                   (let loop ((i 0) (acc 0.0))
                     (if (= i rows) acc (loop (+ i 1) (+ acc (tensor-ref t i j))))))
                 (iota cols)))))
(define (lisp-sum-all t)
  (fold-left (lambda (acc row) (fold-left + acc row)) 0.0 (tensor->list t)))

(define a (tensor-randn '(80 64) 1))
(define b (tensor-randn '(64 64) 2))
(display (equal? (matmul a b) (lisp-matmul a b))) (newline)
(define c (tensor-randn '(7 67) 3))
(define d (tensor-randn '(67 5) 4))
(display (equal? (matmul c d) (lisp-matmul c d))) (newline)
(display (equal? (tensor-sum a 0) (lisp-sum-axis0 a))) (newline)
(display (= (tensor-sum a) (lisp-sum-all a))) (newline)
(display (= (tensor-mean a) (/ (lisp-sum-all a) 5120))) (newline)
(display (equal? (tensor-mean a 0) (tensor-div (lisp-sum-axis0 a) 80))) (newline)

;; Run under mpirun by tests/mpi/test_mpi.py: every mpi-* procedure on this process
;; count, each result checked bit for bit against the rank-order reduction this
;; process computes itself from every rank's input (rank q's input is a function of q).
(define r (mpi-rank))
(define p (mpi-size))
(define (check name ok)
  (display (string-append "rank " (number->string r) ": " (if ok "PASS " "FAIL ") name "\n")))

;; Rank q's tree: values with rounding in every sum (0.1 steps, NaN-free), a signed
;; zero, a vector branch and a number leaf.
(define (input q)
  (list (tensor (list (* 0.1 (+ q 1)) (/ 1.0 (+ q 3)) (- 0.7 (* 0.3 q)) (if (odd? q) -0.0 0.0) 1e16 (* q 1e-16)))
        (vector (reshape (tensor (map (lambda (i) (* (+ i 1.0) (/ 1.0 (+ q 7)))) (iota 12))) '(3 4)))
        (+ (* q 0.25) 1/3)))
(define (leaves t) (list (car t) (vector-ref (cadr t) 0) (caddr t)))
(define (combine op a b)
  (cond ((eq? op 'max) (if (number? a) (max a b) (tensor-maximum a b)))
        (else (+ a b))))
;; ((t0 op t1) op t2) ..., then / p for a mean: what every process must get.
(define (expected op)
  (let loop ((q 1) (acc (map (lambda (x) (if (number? x) (exact->inexact x) x)) (leaves (input 0)))))
    (if (= q p)
        (if (eq? op 'mean) (map (lambda (x) (/ x (exact->inexact p))) acc) acc)
        (loop (+ q 1) (map (lambda (a b) (combine op a b)) acc (leaves (input q)))))))
(define (bits-equal? a b)
  (if (number? a)
      (and (number? b) (eqv? a b))
      (equal? (tensor->list a) (tensor->list b))))
(define (same-leaves? got want) (every bits-equal? (leaves got) want))

(check "rank in range" (and (exact-integer? r) (<= 0 r) (< r p)))
;; mpi-shard: contiguous blocks in rank order, the first N mod P one longer.
(define (shard-of q n) ; this process only knows its own; rebuild everyone's by formula
  (let* ((base (quotient n p)) (extra (remainder n p))
         (first (+ (* q base) (min q extra))) (count (+ base (if (< q extra) 1 0))))
    (map (lambda (i) (+ first i)) (iota count))))
(check "mpi-shard 10" (equal? (mpi-shard 10) (shard-of r 10)))
(check "mpi-shard 1" (equal? (mpi-shard 1) (if (= r 0) '(0) '())))
(check "mpi-shard 0" (equal? (mpi-shard 0) '()))
(check "mpi-shard covers 0..N-1 once"
       (equal? (apply append (map (lambda (q) (shard-of q 7)) (iota p))) (iota 7)))

(for-each
 (lambda (op)
   (let ((got (mpi-allreduce (input r) op)))
     (check (string-append "allreduce " (symbol->string op)) (same-leaves? got (expected op)))
     (check (string-append "allreduce " (symbol->string op) " keeps the structure")
            (and (list? got) (vector? (cadr got)) (equal? (tensor-shape (vector-ref (cadr got) 0)) '(3 4))))))
 '(sum mean max))
(check "allreduce defaults to sum" (same-leaves? (mpi-allreduce (input r)) (expected 'sum)))
(check "allreduce of a named tree"
       (let ((got (mpi-allreduce (list (cons 'w (car (input r))) (cons 'b (caddr (input r)))) 'mean)))
         (and (eq? (caar got) 'w) (eq? (caadr got) 'b)
              (bits-equal? (cdar got) (car (expected 'mean))) (bits-equal? (cdadr got) (caddr (expected 'mean))))))
(check "allreduce of one number" (eqv? (mpi-allreduce 1) (exact->inexact p)))
(check "allreduce of an empty list" (equal? (mpi-allreduce '()) '()))

;; Broadcast from every root in turn.
(for-each
 (lambda (root)
   (let ((got (mpi-broadcast (input r) root)))
     (check (string-append "broadcast from " (number->string root))
            (same-leaves? got (map (lambda (x) (if (number? x) (exact->inexact x) x)) (leaves (input root)))))))
 (iota p))
(mpi-barrier)
(check "barrier returns" #t)

;; Inside jit: the kernel runs the exchange; the same bits as the eager call.
(define step (jit (lambda (t) (mpi-allreduce t 'mean))))
(check "jit allreduce mean" (same-leaves? (step (input r)) (expected 'mean)))
(check "jit allreduce again (kernel hit)" (same-leaves? (step (input r)) (expected 'mean)))
(define step-max (jit (lambda (t) (mpi-allreduce t 'max))))
(check "jit allreduce max" (same-leaves? (step-max (input r)) (expected 'max)))
;; graph-eval on this process while the others run a kernel: the same exchange.
(check "graph-eval allreduce sum"
       (same-leaves? (graph-eval (lambda (t) (mpi-allreduce t)) (input r)) (expected 'sum)))
;; A data-parallel step: grad, then the mean of the gradients, then SGD.
(define (loss w x) (let ((y (matmul x w))) (tensor-sum (* y y))))
(define x-of (lambda (q) (reshape (tensor (map (lambda (i) (/ (+ i q) 10.0)) (iota 6))) '(2 3))))
(define w0 (reshape (tensor '(0.5 -0.25 1.0)) '(3 1)))
(define dp-step
  (jit (lambda (w x)
         (let* ((r ((grad loss 0) w x)) (g (mpi-allreduce (cadr r) 'mean)))
           (list (- w (* 0.1 g)) (mpi-allreduce (car r) 'mean))))))
(define want-g
  (let loop ((q 1) (acc (cadr ((grad loss 0) w0 (x-of 0)))))
    (if (= q p) (/ acc (exact->inexact p)) (loop (+ q 1) (+ acc (cadr ((grad loss 0) w0 (x-of q))))))))
(check "jit grad + allreduce step"
       (equal? (tensor->list (car (dp-step w0 (x-of r)))) (tensor->list (- w0 (* 0.1 want-g)))))
;; Through an exchange: d(sum over processes of sum(allreduce-sum x))/dx = p.
(define g-through ((grad (lambda (x) (tensor-sum (mpi-allreduce x))) 0) (tensor '(1.0 2.0))))
(check "grad through allreduce sum" (equal? (tensor->list (cadr g-through)) (list (exact->inexact p) (exact->inexact p))))

;; What a rerun must reproduce bit for bit: every leaf's bits.
(define (show-bits t)
  (for-each (lambda (x) (display (if (number? x) x (tensor->list x))) (display " ")) (leaves t)))
(display (string-append "rank " (number->string r) ": bits "))
(show-bits (mpi-allreduce (input r) 'mean))
(show-bits (step (input r)))
(newline)

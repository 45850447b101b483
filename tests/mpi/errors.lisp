;; Run under mpirun by tests/mpi/test_mpi.py: trees that differ across processes are
;; an error on every process, raised before any data moves (then the processes go on
;; exchanging, which shows nothing was left half-sent), and bad arguments are errors.
(define r (mpi-rank))
(define p (mpi-size))
(define (try name thunk)
  (display (string-append "rank " (number->string r) ": " name ": "
                          (guard (e (#t (condition/report-string e))) (thunk) "no error")))
  (newline))
;; Rank 1 differs in a shape, then in the structure, then in the reduction.
(try "shape" (lambda () (mpi-allreduce (list (zeros (if (= r 1) '(2 3) '(3 3))) 1.0))))
(try "structure" (lambda () (mpi-allreduce (if (= r 1) (list 1.0 2.0) (list 1.0)))))
(try "vector vs list" (lambda () (mpi-allreduce (if (= r 1) (vector 1.0) (list 1.0)))))
(try "named key" (lambda () (mpi-allreduce (list (cons 'w 1.0) (cons (if (= r 1) 'c 'b) 2.0)))))
(try "reduction" (lambda () (mpi-allreduce (list 1.0) (if (= r 1) 'max 'sum))))
(try "broadcast shape" (lambda () (mpi-broadcast (zeros (if (= r 1) '(2) '(3))) 0)))
(define step (jit (lambda (x) (mpi-allreduce (list x (tensor-sum x)) 'mean))))
(try "jit shape" (lambda () (step (zeros (if (= r 1) '(2) '(3))))))
;; After all that, an exchange still works and gives the right answer.
(display (string-append "rank " (number->string r) ": after: "
                        (number->string (mpi-allreduce (+ r 1.0)))))
(newline)
;; Argument errors, raised by each process alone before any exchange.
(try "bad reduction" (lambda () (mpi-allreduce 1.0 'min)))
(try "bad leaf" (lambda () (mpi-allreduce (list 1.0 "two"))))
(try "bad root" (lambda () (mpi-broadcast 1.0 p)))
(try "negative root" (lambda () (mpi-broadcast 1.0 -1)))
(try "bad shard" (lambda () (mpi-shard -1)))
(try "broadcast in jit" (lambda () ((jit (lambda (x) (mpi-broadcast x 0))) (zeros '(2)))))
(try "grad through max" (lambda () ((grad (lambda (x) (tensor-sum (mpi-allreduce x 'max))) 0) (zeros '(2)))))

;; Without a launcher a program is one process of rank 0 (SPEC §18, docs/distributed.md):
;; every mpi-* procedure works, an allreduce is its input (numbers inexact), and inside
;; traced code the exchange is an allreduce node. Runs under mpirun: tests/mpi/.
(define (try thunk)
  (guard (e (#t (display (error-object-message e)) (newline))) (write (thunk)) (newline)))
(write (list (mpi-rank) (mpi-size))) (newline)
(write (list (mpi-shard 5) (mpi-shard 1) (mpi-shard 0))) (newline)
(mpi-barrier)
(define t (list (tensor '(1.5 -0.0 2.0)) (vector 3 (tensor '((1.0 2.0) (3.0 4.0)))) 1/2))
(write (mpi-allreduce t)) (newline)
(write (mpi-allreduce t 'mean)) (newline)
(write (mpi-allreduce t 'max)) (newline)
(write (mpi-allreduce '())) (newline)
(write (mpi-broadcast t 0)) (newline)
;; Traced: one allreduce node per leaf, exchanged when the graph or kernel runs.
(write (graph-ir (lambda (x) (mpi-allreduce (list x (tensor-sum x)) 'mean)) (tensor '(1.0 2.0)))) (newline)
(define step (jit (lambda (x) (mpi-allreduce (list (* x x) (tensor-sum x))))))
(write (step (tensor '(1.0 2.0 3.0)))) (newline)
(write (graph-eval (lambda (x) (mpi-allreduce (* 2.0 x) 'max)) (tensor '(1.0 -4.0)))) (newline)
;; A constant is exchanged too, never folded.
(write ((jit (lambda (x) (+ x (mpi-allreduce 1.0)))) 2.0)) (newline)
;; grad through an exchange: one process's 'sum passes the gradient through.
(write ((grad (lambda (x) (tensor-sum (* x (mpi-allreduce x)))) 0) (tensor '(1.0 2.0)))) (newline)
;; Errors.
(try (lambda () (mpi-allreduce 1.0 'min)))
(try (lambda () (mpi-allreduce 1.0 "sum")))
(try (lambda () (mpi-allreduce (list 1.0 "two"))))
(try (lambda () (mpi-allreduce (cons 1.0 2.0))))
(try (lambda () (mpi-broadcast 1.0 1)))
(try (lambda () (mpi-broadcast 1.0 'root)))
(try (lambda () (mpi-shard -1)))
(try (lambda () (mpi-shard 2.5)))
(try (lambda () (mpi-rank 0)))
(try (lambda () ((jit (lambda (x) (mpi-broadcast x 0))) (tensor '(1.0)))))
(try (lambda () ((grad (lambda (x) (tensor-sum (mpi-allreduce x 'max))) 0) (tensor '(1.0 2.0)))))

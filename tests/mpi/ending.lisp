;; Run under mpirun by tests/mpi/test_mpi.py: one process (rank 1, the "leaver") ends
;; while the others wait for it, in each kind of exchange; the others must fail with
;; an error naming rank 1 instead of waiting forever (SPEC §18).
;;
;;     mpirun -np P kiln tests/mpi/ending.lisp SCENARIO
;;
;;     mpirun -np P kiln tests/mpi/ending.lisp interrupt|interrupt-jit READY-FILE
;;
;; SCENARIO: allreduce | barrier | broadcast | jit-step | caught | train-error
;; (caught: the waiting processes catch the error, see later exchanges refused at
;; once and end normally; train-error: rank 1 raises in the middle of training.)
;; interrupt, interrupt-jit: rank 0 writes READY-FILE and waits in an exchange (eager;
;; in a kernel) until the test sends it SIGINT; the others end after 30 s (interrupt: the
;; uncaught interrupt must stop every process long before) or 8 s (interrupt-jit:
;; rank 0 catches the error, sees later exchanges refused and ends normally).
(define scenario (cadr (command-line)))
(define r (mpi-rank))
(define leaver? (= r 1))
(define (say . items)
  (display (string-append "rank " (number->string r) ": "))
  (for-each display items)
  (newline))
(define (report thunk)
  (guard (e (#t (say (condition/report-string e)))) (thunk) (say "no error")))
;; Waits about `seconds` without exchanging: the others reach their exchange first.
(define (pause seconds)
  (let ((end (+ (current-jiffy) (* seconds (jiffies-per-second)))))
    (let loop () (when (< (current-jiffy) end) (loop)))))

(define (params) (list (zeros '(3 2)) (zeros '(1 2))))
(define (loss ps x) (tensor-sum (* (+ (matmul x (car ps)) (cadr ps)) (+ (matmul x (car ps)) (cadr ps)))))
(define step
  (jit (lambda (ps x)
         (let* ((g (cadr ((grad loss 0) ps x)))
                (g (mpi-allreduce g 'mean)))
           (sgd-step ps g 0.1)))))
(define x (tensor '((1.0 2.0 3.0) (4.0 5.0 6.0))))
(define (train steps ps) (if (= steps 0) ps (train (- steps 1) (step ps x))))

(mpi-barrier)
(define trained (train 2 (params)))  ; kernels compiled and exchanging on every process
(cond
 ((equal? scenario "allreduce") (unless leaver? (mpi-allreduce (list 1.0 (zeros '(1000))))))
 ((equal? scenario "barrier") (unless leaver? (mpi-barrier)))
 ((equal? scenario "broadcast") (unless leaver? (mpi-broadcast (zeros '(4)) 0)))
 ((equal? scenario "jit-step") (unless leaver? (train 3 trained)))
 ((equal? scenario "caught")
  (unless leaver?
    (report (lambda () (train 1 trained)))
    (report (lambda () (mpi-allreduce 1.0)))
    (report mpi-barrier)
    (say "ended normally")))
 ((equal? scenario "train-error")
  (let loop ((i 0) (ps trained))
    (when (and leaver? (= i 3)) (error "training failed on this process" i))
    (when (< i 10) (loop (+ i 1) (step ps x))))))
(define (ready) (call-with-output-file (caddr (command-line)) (lambda (port) (display "ready" port))))
(cond
 ((equal? scenario "interrupt")
  (if (= r 0) (begin (ready) (mpi-allreduce 1.0)) (pause 30))
  (say "not interrupted"))
 ((equal? scenario "interrupt-jit")
  (when (= r 0)
    (ready)
    (report (lambda () (train 1 trained)))
    (report mpi-barrier)
    (say "ended normally"))
  (unless (= r 0) (pause 8))))
(when leaver? (pause 0.5) (say "leaving"))

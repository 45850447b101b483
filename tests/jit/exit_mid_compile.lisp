;; Used by tiering.sh: queues a background compile of a 24-layer gradient, waits
;; WAIT ms (the first command-line argument) and exits with status 3, so the exit
;; lands at some moment of the compile. The exit removes the compile directory;
;; GCC, finding its output file gone, calls exit(1), which once raced the exit
;; and sometimes won: status 1 and no message.
(define wait (string->number (cadr (command-line))))
(include "../golden/jit/parts/tanh_mlp.lisp")
(define params (map layer (iota 24 1)))
(define X (tensor-randn (list 4 width) 1000))
(define (mean-output ps x) (tensor-mean (forward ps x)))
((jit (grad mean-output)) params X)
(define end (+ (current-jiffy) (* wait (/ (jiffies-per-second) 1000))))
(let loop () (when (< (current-jiffy) end) (loop)))
(exit 3)

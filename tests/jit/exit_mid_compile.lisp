;; Used by tiering.sh: queues a background compile of a 24-layer gradient, waits
;; WAIT ms (the first command-line argument) and exits with status 3, so the exit
;; lands at some moment of the compile. The exit removes the compile directory;
;; GCC, finding its output file gone, calls exit(1), which once raced the exit
;; and sometimes won: status 1 and no message.
(define wait (string->number (cadr (command-line))))
(define width 8)
(define (layer seed)
  (list (tensor-mul (tensor-randn (list width width) seed) (/ 1.0 (sqrt width)))
        (tensor-mul (tensor-randn (list 1 width) (+ seed 100)) 0.1)))
(define params (map layer (iota 24 1)))
(define X (tensor-randn (list 4 width) 1000))
(define (forward ps h)
  (if (null? ps) h (forward (cdr ps) (tensor-tanh (+ (matmul h (caar ps)) (cadar ps))))))
(define (loss ps x) (tensor-mean (forward ps x)))
(define step (jit (grad loss)))
(step params X)
(define end (+ (current-jiffy) (* wait (/ (jiffies-per-second) 1000))))
(let loop () (when (< (current-jiffy) end) (loop)))
(exit 3)

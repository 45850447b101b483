; process context and time
(define (p x) (write x) (newline))
(p (command-line))  ; run by the test runner as `kiln system.lisp`
(p (string? (get-environment-variable "PATH")))
(p (get-environment-variable "KILN_SURELY_UNDEFINED_VARIABLE"))
(p (let ((path (assoc "PATH" (get-environment-variables))))
     (and path (equal? (cdr path) (get-environment-variable "PATH")))))
(p (float? (current-second)))
(p (> (current-second) 1.6e9))
(p (exact-integer? (current-jiffy)))
(p (jiffies-per-second))
(define t0 (now-micros))
(define t1 (now-micros))
(p (and (exact-integer? t0) (<= t0 t1)))

;; Continuations and exceptions: guard and handlers in a re-entered extent.

;; Captured inside a guard body; each re-entry raises, and the guard (restored
;; with the rest of the stack) catches it.
(define k #f)
(define tries 0)
(define caught '())
(let ()
  (guard (e ((symbol? e) (set! caught (cons e caught))))
    (call/cc (lambda (c) (set! k c)))
    (set! tries (+ tries 1))
    (raise (if (odd? tries) 'odd-try 'even-try)))
  (if (< tries 3) (k 'retry)))
(write (list tries (reverse caught))) (newline)

;; The handler stack is restored too: after re-entry, the handler of the
;; captured extent answers raise-continuable, not the one current at the jump.
(define hk #f)
(define answers '())
(let ()
  (with-exception-handler
    (lambda (e) (list 'inner e))
    (lambda ()
      (call/cc (lambda (c) (set! hk c)))
      (set! answers (cons (raise-continuable 'ping) answers))))
  (if (< (length answers) 2)
      (with-exception-handler (lambda (e) (list 'outer e)) (lambda () (hk 'go)))))
(write (reverse answers)) (newline)

;; A continuation captured inside the handler of raise-continuable, re-entered
;; after the handler returned: the handler returns again with the new value.
(define rk #f)
(define seen '())
(let ()
  (with-exception-handler
    (lambda (e) (call/cc (lambda (c) (set! rk c) e)))
    (lambda () (set! seen (cons (+ 1 (raise-continuable 10)) seen))))
  (if (< (length seen) 3) (rk (* 100 (length seen)))))
(write (reverse seen)) (newline)

;; Errors raised in a re-entered extent unwind through the restored frames and
;; their dynamic-wind after-thunks.
(define ek #f)
(define log '())
(let ()
  (guard (e ((error-object? e) (set! log (cons (error-object-message e) log))))
    (dynamic-wind
      (lambda () (set! log (cons 'in log)))
      (lambda () (call/cc (lambda (c) (set! ek c))) (car '()))
      (lambda () (set! log (cons 'out log)))))
  (if (< (length log) 6) (ek 'again)))
(write (reverse log)) (newline)

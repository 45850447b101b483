;; An error or a stack overflow at the bottom of a deep recursion reaches its guard
;; by a jump over the frames in between (runtime/jump_unwind.h), not frame by frame:
;; what those frames would undo is undone all the same. (A small stack,
;; KILN_STACK_MB in deep_jump.env, keeps the overflows quick.)
(define (deep n thunk) (if (= n 0) (thunk) (+ 1 (deep (- n 1) thunk))))
(define log '())
(define (note x) (set! log (cons x log)))
(define p (make-parameter 'outer))

;; dynamic-wind after-thunks run innermost first, each with the parameterize
;; bindings outside it; the guard sees the raised value.
(write
 (guard (e ((string? e) (list 'caught e (p))))
   (deep 20000
         (lambda ()
           (dynamic-wind
            (lambda () (note 'in1))
            (lambda ()
              (parameterize ((p 'inner))
                (deep 20000
                      (lambda ()
                        (dynamic-wind
                         (lambda () (note (list 'in2 (p))))
                         (lambda () (deep 20000 (lambda () (raise "boom"))))
                         (lambda () (note (list 'out2 (p)))))))))
            (lambda () (note (list 'out1 (p)))))))))
(newline)
(write (reverse log)) (newline)
(write (p)) (newline)

;; A stack overflow through a dynamic-wind: the after-thunk runs, the guard
;; outside catches it, and deep recursion works again afterwards.
(define (runaway n) (+ 1 (runaway (+ n 1))))
(define unwound #f)
(write (guard (e ((error-object? e) (error-object-message e)))
         (dynamic-wind (lambda () #f) (lambda () (deep 1000 (lambda () (runaway 0)))) (lambda () (set! unwound #t)))))
(newline)
(write unwound) (newline)
(write (deep 30000 (lambda () 0))) (newline)

;; Exception handlers installed below are gone after the jump: a later
;; raise-continuable finds the outer handler.
(write
 (with-exception-handler
  (lambda (e) (list 'outer-handler e))
  (lambda ()
    (list (guard (e ((error-object? e) (error-object-message e)))
            (deep 20000
                  (lambda ()
                    (with-exception-handler
                     (lambda (e) 'inner-handler-returns)
                     (lambda () (deep 20000 (lambda () (raise 'x))))))))
          (raise-continuable 5)))))
(newline)

;; A continuation captured at depth under a guard, re-entered from a later
;; form after the guard has caught an error raised below it: the guard catches
;; again.
(define k #f)
(define count 0)
(define r
  (guard (e ((number? e) (list 'caught e)))
    (deep 20000
          (lambda ()
            (call/cc (lambda (c) (set! k c)))
            (set! count (+ count 1))
            (deep 20000 (lambda () (raise count)))))))
(write r) (newline)
(if (< count 3) (k #f))
(write r) (newline)

;; An uncaught error at depth keeps the ten innermost frames of its backtrace
;; (tail/overflow_backtrace shows them).
(write (guard (e (#t (error-object-message e))) (deep 50000 (lambda () (car 5)))))
(newline)

;; dynamic-wind: before/after thunks on normal exit, on error, on escape.
(define trail '())
(define (note x) (set! trail (cons x trail)))
(define (show) (write (reverse trail)) (newline) (set! trail '()))
(write (dynamic-wind (lambda () (note 'before)) (lambda () (note 'during) 'result) (lambda () (note 'after))))
(newline)
(show)
;; An error inside: the after thunk runs before the guard clause.
(guard (e (#t (note (list 'handler e))))
  (dynamic-wind
    (lambda () (note 'before))
    (lambda () (raise 'boom) (note 'not-reached))
    (lambda () (note 'after))))
(show)
;; A builtin error inside.
(guard (e (#t (note 'handler)))
  (dynamic-wind (lambda () (note 'before)) (lambda () (car 5)) (lambda () (note 'after))))
(show)
;; Escaping with call/cc.
(write (call/cc (lambda (k)
  (dynamic-wind (lambda () (note 'before)) (lambda () (k 'escaped) (note 'no)) (lambda () (note 'after))))))
(newline)
(show)
;; Nested winds unwind innermost first.
(guard (e (#t (note 'handler)))
  (dynamic-wind
    (lambda () (note 'outer-before))
    (lambda ()
      (dynamic-wind
        (lambda () (note 'inner-before))
        (lambda () (error "deep"))
        (lambda () (note 'inner-after))))
    (lambda () (note 'outer-after))))
(show)
;; The body returns multiple values through dynamic-wind.
(call-with-values (lambda () (dynamic-wind (lambda () #f) (lambda () (values 1 2)) (lambda () #f)))
  (lambda (a b) (write (list a b)) (newline)))
(guard (e (#t (display (error-object-message e)) (newline)))
  (dynamic-wind 1 (lambda () 2) (lambda () 3)))

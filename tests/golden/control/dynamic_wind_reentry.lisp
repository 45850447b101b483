;; dynamic-wind and re-entry: before-thunks run again each time control enters
;; the extent through a continuation, after-thunks each time it leaves.
(define log '())
(define (log! x) (set! log (cons x log)))
(define (show-log) (write (reverse log)) (newline) (set! log '()))

;; Leave the extent normally, then jump back in once.
(let ((k #f) (rounds 0))
  (dynamic-wind
    (lambda () (log! 'in))
    (lambda () (log! (call/cc (lambda (c) (set! k c) 'first))))
    (lambda () (log! 'out)))
  (set! rounds (+ rounds 1))
  (if (< rounds 2) (k 'second)))
(show-log)

;; The result is only built on the last pass.
(write
  (let ((trail '()) (again #f))
    (define (add! x) (set! trail (cons x trail)))
    (dynamic-wind
      (lambda () (add! 'enter))
      (lambda () (add! (call/cc (lambda (c) (set! again c) 'one))))
      (lambda () (add! 'leave)))
    (if (< (length trail) 6) (again 'two) (reverse trail))))
(newline)

;; Nested extents: jumping in from outside runs the befores outermost first;
;; leaving runs the afters innermost first.
(let ((inner-k #f) (passes 0))
  (dynamic-wind
    (lambda () (log! 'outer-in))
    (lambda ()
      (dynamic-wind
        (lambda () (log! 'inner-in))
        (lambda () (call/cc (lambda (c) (set! inner-k c))) (log! 'body))
        (lambda () (log! 'inner-out))))
    (lambda () (log! 'outer-out)))
  (set! passes (+ passes 1))
  (if (< passes 3) (inner-k 'again)))
(show-log)

;; Between two sibling extents under a shared one: the shared extent is neither
;; left nor entered, only the siblings are.
(let ((left-k #f) (jumped #f))
  (dynamic-wind
    (lambda () (log! 'shared-in))
    (lambda ()
      (dynamic-wind
        (lambda () (log! 'a-in))
        (lambda () (call/cc (lambda (c) (set! left-k c))) (log! 'a-body))
        (lambda () (log! 'a-out)))
      (dynamic-wind
        (lambda () (log! 'b-in))
        (lambda () (unless jumped (set! jumped #t) (left-k 'back)))
        (lambda () (log! 'b-out))))
    (lambda () (log! 'shared-out))))
(show-log)

;; An escape from inside runs the after-thunk once; the after-thunk runs outside
;; its own extent, so a dynamic-wind inside it is an ordinary one.
(call/cc (lambda (esc)
  (dynamic-wind
    (lambda () (log! 'x-in))
    (lambda () (esc 'gone) (log! 'not-reached))
    (lambda () (dynamic-wind (lambda () (log! 'after-in)) (lambda () (log! 'after)) (lambda () (log! 'after-out)))))))
(show-log)

;; A generator inside an extent: every resume enters it, every yield leaves it.
(let* ((resume #f) (return #f)
       (next (lambda ()
               (call/cc (lambda (c)
                 (set! return c)
                 (if resume
                     (resume 'go)
                     (dynamic-wind
                       (lambda () (log! 'gen-in))
                       (lambda ()
                         (for-each (lambda (x) (call/cc (lambda (r) (set! resume r) (return x)))) '(1 2)))
                       (lambda () (log! 'gen-out)))))))))
  (log! (next))
  (log! (next)))
(show-log)

;; call/cc inside the extent of another call/cc shares the enclosing capture's
;; copy of the older frames (docs/continuations.md). Re-entering such a
;; continuation must put back every frame above it, from each capture of the
;; chain, exactly as it was.

;; One capture per level of a non-tail recursion, each inside the extent of the
;; one above. Re-entering level i after the whole recursion has returned redoes
;; the additions and multiplications of the levels above it. (Each test is one
;; top-level form: re-entering a form's continuation finishes that form.)
(define saved (make-vector 6 #f))
(define (deep n)
  (if (= n 0)
      0
      (+ 10 (call/cc (lambda (k) (vector-set! saved n k) (* 100 (deep (- n 1))))))))
(let ((runs 0))
  (let ((result (deep 5)))
    (set! runs (+ runs 1))
    (write (list 'run runs 'result result)) (newline)
    (cond ((= runs 1) ((vector-ref saved 1) 7))   ; innermost: 4 levels above it
          ((= runs 2) ((vector-ref saved 3) 7))   ; middle
          ((= runs 3) ((vector-ref saved 5) 7))   ; outermost
          ((= runs 4) ((vector-ref saved 2) 3)))))

;; Local variables of every frame above the re-entered one come back.
(define here #f)
(define (frames n acc)
  (if (= n 0)
      (call/cc (lambda (k) (set! here k) acc))
      (let ((mine (* n n)))
        (list mine (call/cc (lambda (k0) (frames (- n 1) (cons mine acc))))))))
(let ((visits 0))
  (let ((got (frames 4 '())))
    (set! visits (+ visits 1))
    (write (list visits got)) (newline)
    (if (< visits 3) (here (list 'again visits)))))

;; ctak: call/cc at every level of a deep recursion, every continuation used as
;; an escape from deeper levels.
(define (ctak x y z)
  (call/cc (lambda (k) (ctak-aux k x y z))))
(define (ctak-aux k x y z)
  (if (not (< y x))
      (k z)
      (call/cc
       (lambda (k)
         (ctak-aux k
                   (call/cc (lambda (k) (ctak-aux k (- x 1) y z)))
                   (call/cc (lambda (k) (ctak-aux k (- y 1) z x)))
                   (call/cc (lambda (k) (ctak-aux k (- z 1) x y))))))))
(write (ctak 12 8 4)) (newline)

;; A generator whose walk captures inside the extent of its caller's capture,
;; re-entered many times: each switch restores the chain.
(define (tree-walker tree)
  (define return #f)
  (define resume #f)
  (define (walk t)
    (cond ((null? t) 'skip)
          ((pair? t) (walk (car t)) (walk (cdr t)))
          (else (call/cc (lambda (r) (set! resume r) (return t))))))
  (lambda ()
    (call/cc
     (lambda (ret)
       (set! return ret)
       (if resume
           (resume 'go)
           (begin (walk tree) (return 'done)))))))
(define next (tree-walker '((1 2) (3 (4 5)) 6)))
(define (collect acc)
  (let ((x (next)))
    (if (eq? x 'done) (reverse acc) (collect (cons x acc)))))
(write (collect '())) (newline)

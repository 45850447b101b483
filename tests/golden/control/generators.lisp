;; Generators written with call/cc: each call resumes the producer where it
;; last yielded, long after the call/cc that captured it has returned.

;; (make-generator walk) calls (walk yield) lazily; the generator returns the
;; yielded values one by one, then 'done forever.
(define (make-generator walk)
  (define return #f)
  (define resume #f)
  (define (yield v)
    (call/cc (lambda (here)
      (set! resume here)
      (return v))))
  (lambda ()
    (call/cc (lambda (caller)
      (set! return caller)
      (if resume
          (resume 'go)
          (begin (walk yield)
                 (set! resume (lambda (ignored) (return 'done)))
                 (return 'done)))))))

;; A tree walk, yielding leaves from inside deep recursion.
(define (tree-walker tree)
  (lambda (yield)
    (let walk ((t tree))
      (cond ((null? t) 'skip)
            ((pair? t) (walk (car t)) (walk (cdr t)))
            (else (yield t))))))

(define g (make-generator (tree-walker '((a b) (c (d e)) f))))
(define (drain gen)
  (let loop ((acc '()))
    (let ((v (gen)))
      (if (eq? v 'done) (reverse acc) (loop (cons v acc))))))
(write (drain g)) (newline)
(write (list (g) (g))) (newline)   ; exhausted: stays done

;; Same fringe: two generators advanced in lock step.
(define (same-fringe? a b)
  (let ((ga (make-generator (tree-walker a)))
        (gb (make-generator (tree-walker b))))
    (let loop ()
      (let ((x (ga)) (y (gb)))
        (cond ((not (eqv? x y)) #f)
              ((eq? x 'done) #t)
              (else (loop)))))))
(write (list (same-fringe? '(1 (2 3) 4) '((1 2) (3 (4))))
             (same-fringe? '(1 (2 3) 4) '((1 2) (4 3)))))
(newline)

;; An infinite generator: natural numbers, taken across separate top-level forms.
(define naturals (make-generator (lambda (yield) (let count ((n 0)) (yield n) (count (+ n 1))))))
(write (naturals)) (newline)
(write (naturals)) (newline)
(write (let loop ((i 0) (acc '())) (if (= i 5) (reverse acc) (loop (+ i 1) (cons (naturals) acc)))))
(newline)

;; A generator whose producer yields from 2000 frames deep.
(define deep (make-generator (lambda (yield)
  (let down ((n 2000)) (if (= n 0) (yield 'bottom) (begin (down (- n 1)) (if (= (modulo n 500) 0) (yield n))))))))
(write (drain deep)) (newline)

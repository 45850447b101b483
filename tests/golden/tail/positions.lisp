;; Proper tail calls in every R7RS tail position: each loop runs 1 000 000
;; iterations, far beyond what the stack could hold without tail calls.
(define n 1000000)

(define (via-if i) (if (= i 0) 'if-done (via-if (- i 1))))
(write (via-if n)) (newline)

(define (via-cond i)
  (cond ((= i 0) 'cond-done)
        ((odd? i) (via-cond (- i 1)))
        (else (via-cond (- i 1)))))
(write (via-cond n)) (newline)

(define (via-cond-arrow i)
  (cond ((= i 0) 'cond-arrow-done)
        ((- i 1) => via-cond-arrow)))
(write (via-cond-arrow n)) (newline)

(define (via-case i)
  (case (modulo i 3)
    ((0) (if (= i 0) 'case-done (via-case (- i 1))))
    ((1) (via-case (- i 1)))
    (else (via-case (- i 1)))))
(write (via-case n)) (newline)

(define (via-and i) (and #t (if (= i 0) 'and-done (via-and (- i 1)))))
(write (via-and n)) (newline)

(define (via-and-last i) (if (= i 0) 'and-last-done (and (> i 0) (via-and-last (- i 1)))))
(write (via-and-last n)) (newline)

(define (via-or i) (or (and (= i 0) 'or-done) (via-or (- i 1))))
(write (via-or n)) (newline)

(define (via-when i) (if (= i 0) 'when-done (when #t (via-when (- i 1)))))
(write (via-when n)) (newline)

(define (via-unless i) (if (= i 0) 'unless-done (unless #f (via-unless (- i 1)))))
(write (via-unless n)) (newline)

(define (via-let i) (if (= i 0) 'let-done (let ((j (- i 1))) (via-let j))))
(write (via-let n)) (newline)

(define (via-let* i) (if (= i 0) 'let*-done (let* ((j (- i 1)) (k j)) (via-let* k))))
(write (via-let* n)) (newline)

(define (via-letrec i)
  (if (= i 0) 'letrec-done (letrec ((j (- i 1))) (via-letrec j))))
(write (via-letrec n)) (newline)

(define (via-letrec* i)
  (if (= i 0) 'letrec*-done (letrec* ((j (- i 1)) (k j)) (via-letrec* k))))
(write (via-letrec* n)) (newline)

(write (let loop ((i n)) (if (= i 0) 'named-let-done (loop (- i 1))))) (newline)

(write (do ((i n (- i 1))) ((= i 0) 'do-done))) (newline)

(define (via-begin i) (if (= i 0) 'begin-done (begin 'ignored (via-begin (- i 1)))))
(write (via-begin n)) (newline)

;; The last expression of a lambda body, after internal defines.
(define (via-body i)
  (define j (- i 1))
  (if (< j 0) 'body-done (via-body j)))
(write (via-body n)) (newline)

;; A tail call through a closure stored in a variable, and through apply's caller.
(define (via-closure i k) (if (= i 0) (k 'closure-done) (via-closure (- i 1) k)))
(write (via-closure n (lambda (x) x))) (newline)

;; The body of a case-lambda clause and of a parameterize-free let-values body.
(define via-case-lambda
  (case-lambda
    ((i) (via-case-lambda i 'unused))
    ((i x) (if (= i 0) 'case-lambda-done (via-case-lambda (- i 1) x)))))
(write (via-case-lambda n)) (newline)

;; when/unless with several body forms: the last one is in tail position.
(define (via-when-body i) (when #t 'first (if (= i 0) 'when-body-done (via-when-body (- i 1)))))
(write (via-when-body n)) (newline)

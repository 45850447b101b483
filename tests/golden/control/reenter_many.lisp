;; One continuation re-entered many times, from inside its own extent's
;; aftermath, across top-level forms and from deep recursion.

;; A loop made only of re-entries: 10000 of them.
(define k #f)
(write (let ((n (call/cc (lambda (c) (set! k c) 0))))
         (if (< n 10000) (k (+ n 1)) n)))
(newline)

;; The value each re-entry delivers is seen by the rest of the expression.
(write (let ((sums '()) (again #f))
         (set! sums (cons (+ 100 (call/cc (lambda (c) (set! again c) 1))) sums))
         (if (< (length sums) 4) (again (* 10 (length sums))) (reverse sums))))
(newline)

;; Each top-level form runs under its own prompt: re-entering a continuation
;; captured by an earlier form finishes that form's computation, then the file
;; goes on after the form that made the jump (it is not run again).
(define top-k #f)
(define top-count 0)
(begin (set! top-count (+ top-count (call/cc (lambda (c) (set! top-k c) 1)))) (write (list 'count top-count)) (newline))
(top-k 10)
(write (list 'after top-count)) (newline)

;; Captured 20000 frames deep, re-entered three times after the recursion returned.
(define deep-k #f)
(define (down n)
  (if (= n 0)
      (call/cc (lambda (c) (set! deep-k c) 0))
      (+ 1 (down (- n 1)))))
(write (let ((results '()))
         (set! results (cons (down 20000) results))
         (if (< (length results) 4) (deep-k (length results)) (reverse results))))
(newline)

;; Several values through a re-entered continuation.
(define vk #f)
(define got '())
(let ()
  (call-with-values (lambda () (call/cc (lambda (c) (set! vk c) (values 1 2))))
    (lambda args (set! got (cons args got))))
  (if (< (length got) 2) (vk 'a 'b 'c)))
(write (reverse got)) (newline)

;; A continuation is still an escape while its call/cc is running.
(write (+ 1 (call/cc (lambda (c) (* 2 (c 41)))))) (newline)

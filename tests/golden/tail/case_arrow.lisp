;; R7RS 3.5: in (case KEY (DATA => RECEIVER)), the call of RECEIVER is a tail call.
(define (via-case-arrow i)
  (case i
    ((0) 'case-arrow-done)
    (else => (lambda (v) (via-case-arrow (- v 1))))))
(write (via-case-arrow 1000000)) (newline)
(define (via-case-arrow-datum i)
  (case (if (= i 0) 'stop 'go)
    ((stop) 'case-datum-arrow-done)
    ((go) => (lambda (ignored) (via-case-arrow-datum (- i 1))))))
(write (via-case-arrow-datum 1000000)) (newline)

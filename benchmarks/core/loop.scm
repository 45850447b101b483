;; A 10-million-iteration named-let loop: tail calls in constant space.
(define (sum-below n)
  (let loop ((i 0) (acc 0))
    (if (= i n)
        acc
        (loop (+ i 1) (+ acc i)))))

(display (sum-below 10000000))
(newline)

;; A 10-million-iteration named-let loop runs in constant space (docs/language.md).
(write (let loop ((i 0) (sum 0))
         (if (= i 10000000) sum (loop (+ i 1) (+ sum i)))))
(newline)

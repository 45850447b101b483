;; String building: a string port filled with 200 000 numbers, then repeated
;; string-append and character scans over the result.
(define (numbers-text n)
  (let ((port (open-output-string)))
    (let loop ((i 0))
      (when (< i n)
        (write i port)
        (write-char #\space port)
        (loop (+ i 1))))
    (get-output-string port)))

(define (count-char s c)
  (let loop ((i 0) (count 0))
    (if (= i (string-length s))
        count
        (loop (+ i 1) (if (char=? (string-ref s i) c) (+ count 1) count)))))

(define (append-words n)
  (let loop ((i 0) (acc ""))
    (if (= i n)
        acc
        (loop (+ i 1) (string-append acc (number->string i) ",")))))

(define text (numbers-text 200000))
(define joined (append-words 3000))
(display (list (string-length text) (count-char text #\7)
               (string-length joined) (count-char joined #\,)))
(newline)

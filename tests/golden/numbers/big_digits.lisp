;; Integers above 2^20 bits are written in base 10 (and other radixes that are
;; not powers of two) by splitting them at powers of the radix: the digits must
;; be exactly those of the integer, including blocks of zeros in the middle and
;; at the end, whatever the sign. Checked by reading the digits back, and by the
;; digit sums and counts a reader can work out.
(define (digit-sum s)
  (let loop ((i 0) (acc 0))
    (if (= i (string-length s)) acc
        (let ((c (string-ref s i)))
          (loop (+ i 1) (if (char-numeric? c) (+ acc (digit-value c)) acc))))))
(define (check name x radix)
  (let* ((s (number->string x radix)) (back (string->number s radix)))
    (display name) (display ": ") (display (string-length s)) (display " digits, ")
    (display (if (= back x) "reads back" "DIFFERS")) (newline)))
(define big (expt 10 400000))
(check "10^400000" big 10)
(display (digit-sum (number->string big))) (newline)                       ; 1
(check "10^400000 + 1" (+ big 1) 10)
(display (digit-sum (number->string (+ big 1)))) (newline)                 ; 2
(check "-(10^400000 + 7)" (- (+ big 7)) 10)
(display (string-ref (number->string (- (+ big 7))) 0)) (newline)          ; -
(check "7^500000" (expt 7 500000) 10)
(check "2^1048577 - 1" (- (expt 2 1048577) 1) 10)
(check "7^500000 in base 3" (expt 7 500000) 3)
(check "7^500000 in base 36" (expt 7 500000) 36)
(check "a ratio" (/ (expt 3 700000) (expt 2 1048580)) 10)
(define nines (- big 1))
(display (= (digit-sum (number->string nines)) (* 9 400000))) (newline)   ; #t
(write (string->number (substring (number->string (* 12345 big)) 0 5))) (newline)

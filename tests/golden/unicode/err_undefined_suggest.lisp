;; The suggestion for an undefined variable counts characters, not UTF-8 bytes:
;; 中文字 is one character (three bytes) longer than 中文.
(define (中文 x) x)
(display (中文 1))
(newline)
(中文字 2)

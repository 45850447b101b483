;; LF, CR LF and CR are each one line ending (R7RS 7.1.1), wherever the reader and
;; read-line meet one; messages show control characters escaped, never raw.
(define cr (string #\return))
(define lf (string #\newline))
(define crlf (string-append cr lf))
(define (read-all text)
  (let ((p (open-input-string text)))
    (let loop ((acc '()))
      (let ((d (read p)))
        (if (eof-object? d) (reverse acc) (loop (cons d acc)))))))
(define (lines text)
  (let ((p (open-input-string text)))
    (let loop ((acc '()))
      (let ((l (read-line p)))
        (if (eof-object? l) (reverse acc) (loop (cons l acc)))))))

;; A string's \ line continuation with each ending.
(for-each
 (lambda (eol)
   (write (read-all (string-append "\"abc\\" eol "   def\"")))
   (newline))
 (list lf crlf cr))
;; Blanks between the backslash and the ending are allowed too.
(write (read-all (string-append "\"abc\\  " crlf "\tdef\""))) (newline)
;; A ; comment ends at any line ending; #| |# spans them.
(write (read-all (string-append "1 ; one" cr "2 ; two" crlf "3 #| a" cr "b |# 4"))) (newline)
;; read-line strips each kind of ending, and a lone CR is an ending of its own.
(write (lines (string-append "a" lf "b" crlf "c" cr "d" cr cr "e"))) (newline)
(write (lines (string-append "x" crlf crlf))) (newline)
;; Places in read errors count the lines of CR-only and CR LF text.
(define (read-error text)
  (guard (e (#t (write (error-object-message e)) (newline))) (read-all text)))
(read-error (string-append "1" cr "2" cr "  #\\bogus"))
(read-error (string-append "1" crlf "2" crlf "  #\\bogus"))
(read-error (string-append "1" lf cr "2" lf lf "  #\\bogus"))
;; An unknown escape is named without putting a raw control character in the message.
(guard (e (#t (write (error-object-message e)) (newline)))
  (read-all (string-append "\"ab\\" (string (integer->char 27)) "\"")))

; Files as text, one char per byte (0-255), for the .npy tests of this directory
; (included; no .out file, so the runner does not run it alone): a string stands
; for a file's bytes, written and read through binary ports.
(define (text->bytes s)
  (let ((b (make-bytevector (string-length s))))
    (do ((i 0 (+ i 1))) ((= i (string-length s)) b)
      (bytevector-u8-set! b i (char->integer (string-ref s i))))))
(define (bytes->text b)
  (let ((s (make-string (bytevector-length b))))
    (do ((i 0 (+ i 1))) ((= i (bytevector-length b)) s)
      (string-set! s i (integer->char (bytevector-u8-ref b i))))))
; The whole of file P (up to a megabyte) as text.
(define (file-text p)
  (bytes->text (call-with-port (open-binary-input-file p) (lambda (port) (read-bytevector 1000000 port)))))

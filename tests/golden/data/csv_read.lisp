; read-csv: numeric cells to a rank-2 tensor; gzip found by its magic bytes, not its name.
(define (show t) (write (tensor-shape t)) (display " ") (write (tensor->list t)) (newline))
(define table (read-csv "../../data/csv/table.csv" #t))
(show table)
; the same file gzip-compressed, with and without a .gz name
(show (read-csv "../../data/csv/table.csv.gz" #t))
(write (equal? table (read-csv "../../data/csv/table_gzipped.csv" #t))) (newline)
; NumPy's savetxt output (%.17g): nan and -inf read as strtod reads them
(show (read-csv "../../data/csv/savetxt.csv"))
; HEADER? is any true value; #f reads the first line as data
(define (write-file path text)
  (call-with-output-file path (lambda (p) (write-string text p))))
(define path "csv-read-test.csv")
(write-file path "1,2\n3,4\n")
(show (read-csv path #f))
(show (read-csv path 'yes))
; one column is still rank 2; a last line without a newline counts; blank lines are skipped
(write-file path "5\n\n  \n6\r\n7")
(show (read-csv path))
; spaces and tabs around cells, CRLF, a byte order mark, what strtod reads
(write-file path "\xFEFF;  1 ,\t+2.5e1\t, 0x10 ,-INF, Infinity,NaN\r\n")
(show (read-csv path))
; a file that starts like a byte order mark but is not one (a lone byte 0xEF)
(call-with-port (open-binary-output-file path)
                (lambda (p) (write-bytevector (bytevector #xEF 44 49 10) p)))
(guard (e (#t (display (substring (error-object-message e) 0 58)) (newline))) (read-csv path))
; a header with quotes and commas is skipped whole
(write-file path "\"a,b\",c\n1,2\n")
(show (read-csv path #t))
; overflow and underflow are strtod's: +inf.0 and 0.0
(write-file path "1e400,-1e400,1e-400\n")
(show (read-csv path))
(delete-file path)

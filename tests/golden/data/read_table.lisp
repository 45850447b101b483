; read-table: (NAMES COLUMN ...), a column of numbers a rank-1 tensor, a column
; with any text a vector of strings; the same options as read-csv.
(define (show x) (write x) (newline))
(define path "read-table-test.csv")
(define (write-file text) (call-with-output-file path (lambda (p) (write-string text p))))
(define (check thunk) (guard (e (#t (display (error-object-message e)) (newline))) (show (thunk))))
; iris: four numeric columns and a text label, with a header
(write-file "sepal_length,sepal_width,petal_length,petal_width,species\n5.1,3.5,1.4,0.2,setosa\n7.0,3.2,4.7,1.4,versicolor\n6.3,3.3,6.0,2.5,virginica\n4.9,3.0,1.4,0.2,setosa\n")
(define iris (read-table path #t))
(show (car iris))
(show (cdr iris))
; labels to class indices
(define species (list-ref iris 5))
(define classes (let loop ((i 0) (seen '()))
                  (if (= i (vector-length species)) (reverse seen)
                      (loop (+ i 1) (if (member (vector-ref species i) seen) seen (cons (vector-ref species i) seen))))))
(show classes)
(show (map (lambda (s) (- (length classes) (length (member s classes)))) (vector->list species)))
; columns chosen and reordered; names follow them
(show (read-table path #t 'columns '(4 0)))
; no header: the names are the column numbers
(write-file "a 1\nb 2\n c   3 \n")
(show (read-table path 'delimiter #\space))
(show (read-table path #f 'delimiter #\space 'columns '(1)))
; a column that is all numbers but for empty cells: NaN there; text keeps "" cells
(write-file "x,y,z\n1,,a\n,2,\n3,4,c\n")
(show (read-table path #t))
(write-file "x,y\n,\n,\n")
(show (read-table path #t))
; quoted cells keep their blanks, delimiters and quotes; one number in a column of text makes text of it all
(write-file "name,note\n\"Smith, J\",\" two  spaces \"\n\"say \"\"hi\"\"\",3\n")
(show (read-table path #t))
; UTF-8 text, a byte order mark, CRLF line ends
(write-file "\xFEFF;name,n\r\ncafé,1\r\nλ,2\r\n")
(show (read-table path #t))
; gzip-compressed files read as their text
(show (read-table "../../data/csv/table.csv.gz" #t))
; errors name the file, the line and the column
(write-file "a,b\n1,2,3\n")
(check (lambda () (read-table path #t)))
(write-file "a,b,c\n1,2\n")
(check (lambda () (read-table path #t)))
(write-file "a,b\n1,2\n3\n")
(check (lambda () (read-table path #t)))
(write-file "a,b\n1,2\n")
(check (lambda () (read-table path #t 'columns '(2))))
(write-file "a,b\n")
(check (lambda () (read-table path #t)))
(write-file "")
(check (lambda () (read-table path)))
(write-file "a,\"b\n")
(check (lambda () (read-table path)))
(write-file (string-append "a," (make-string 70000 #\x) "\n"))
(check (lambda () (read-table path)))
(check (lambda () (read-table "no-such-file.csv")))
(check (lambda () (read-table path 'delimiter 5)))
(check (lambda () (read-table path #t 'columns '(x))))
(delete-file path)

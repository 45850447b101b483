;; define-library in the program itself, then import: each library has its own
;; namespace, exports may be renamed, and exported macros keep referring to
;; the library's private names.
(define-library (counter)
  (export next! reset! (rename current value))
  (import (scheme base))
  (begin
    (define count 0)
    (define (next!) (set! count (+ count 1)) count)
    (define (reset!) (set! count 0))
    (define (current) count)))

(define-library (other counter)
  (export next!)
  (import (scheme base))
  (begin
    (define count 100)
    (define (next!) (set! count (+ count 10)) count)))

(import (scheme base) (scheme write) (counter) (prefix (other counter) other-))
(next!)
(next!)
(write (list (value) (other-next!) (other-next!)))
(newline)
(reset!)
(write (value))
(newline)
;; The program's own `count` is neither library's.
(define count 'mine)
(write (list count (next!)))
(newline)

(define-library (logging)
  (export log! log-lines)
  (import (scheme base))
  (begin
    (define lines '())
    (define (record! s) (set! lines (cons s lines)))
    (define (log-lines) (reverse lines))
    (define-syntax log! (syntax-rules () ((_ msg) (record! msg))))))
(import (logging))
;; log!'s template calls the library's private record!, even where the use
;; site binds that name, and the program never sees record! itself.
(let ((record! 'a-local-variable)) (log! "first"))
(log! "second")
(write (log-lines))
(newline)
(write (guard (e (#t (condition/report-string e))) (record! "x")))
(newline)

;; A library name may contain numbers.
(define-library (srfi 1000 demo) (export answer) (import (scheme base)) (begin (define answer 42)))
(import (srfi 1000 demo))
(write answer)
(newline)

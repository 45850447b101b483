; Source nested deeper than the C stack allows is an error, never a crash:
; the reader names the list it could not read, analysis says stack overflow.
; Nesting that fits is read, analysed and quasiquoted in linear time.
(define (report thunk)
  (guard (e (#t (display (condition/report-string e)) (newline)))
    (thunk)))
(define deep-text (string-append (make-string 3000000 #\() (make-string 3000000 #\))))
; (the message ends with the port position, which depends on the stack size: cut it)
(guard (e (#t (let ((m (condition/report-string e)))
                (display (substring m 0 (- (string-index m #\() 1))) (newline))))
  (read (open-input-string deep-text)))
(define (nest-calls n)
  (let loop ((i 0) (x 1)) (if (= i n) x (loop (+ i 1) (list 'list x)))))
(report (lambda () (eval (nest-calls 3000000) (interaction-environment))))
(display (length (eval (nest-calls 1000) (interaction-environment)))) (newline)
; quasiquote looks at each part once: 20000 levels with one unquote at the bottom
(define (nest-qq n)
  (let loop ((i 0) (x '(unquote (+ 1 2)))) (if (= i n) x (loop (+ i 1) (list x 'k)))))
(define q (eval (list 'quasiquote (nest-qq 20000)) (interaction-environment)))
(display (let loop ((x q) (d 0)) (if (pair? x) (loop (car x) (+ d 1)) (list d x)))) (newline)
(define same (eval (list 'quasiquote (cdr (nest-qq 3))) (interaction-environment)))
(display same) (newline)

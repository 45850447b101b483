;; values, call-with-values, define-values, let-values, let*-values, receive.
(write (call-with-values (lambda () (values 1 2)) +)) (newline)
(write (call-with-values (lambda () (values)) list)) (newline)
(write (call-with-values (lambda () 5) list)) (newline)
(write (call-with-values * -)) (newline)
(write (+ 1 (values 2))) (newline)          ; one value is just that value
(receive (a . rest) (values 1 2 3) (write (list a rest))) (newline)
(receive all (values 1 2) (write all)) (newline)
(receive (a b) (values 'x 'y) (write (list b a))) (newline)
(let-values (((a b) (values 1 2)) ((c) (values 3))) (write (list a b c))) (newline)
(let-values (((a . r) (values 1 2 3)) (all (values 4 5))) (write (list a r all))) (newline)
(let*-values (((a b) (values 1 2)) ((c) (values (+ a b)))) (write c)) (newline)
(write (let-values () 'empty)) (newline)
;; Values through call/cc.
(call-with-values (lambda () (call/cc (lambda (k) (k 1 2))))
  (lambda (a b) (write (list a b)) (newline)))

;; random-permutation, he-normal and glorot-uniform (SPEC §13): seeded, the same
;; numbers on every machine. A weight W of (matmul X W) has shape (FAN-IN FAN-OUT),
;; and further dimensions multiply both fans (PyTorch's rule for its OUT x IN x ...
;; layout, with the first two swapped).
(define p (random-permutation 10 1))
(write p) (newline)
(write (equal? p (random-permutation 10 1))) (newline)
(write (equal? p (random-permutation 10 2))) (newline)
(write (equal? (list-sort < (random-permutation 1000 3)) (iota 1000))) (newline)
(write (random-permutation 0 1)) (newline)
(write (random-permutation 1 1)) (newline)
;; Used with tensor-take to shuffle the rows of a data set.
(write (tensor->list (tensor-take (tensor '((0.0 0.5) (1.0 1.5) (2.0 2.5))) (random-permutation 3 4)))) (newline)

;; he-normal: std sqrt(2 / fan-in) times tensor-randn's numbers, bit for bit.
(define w (he-normal '(64 32) 5))
(write (tensor-shape w)) (newline)
(write (equal? w (* (sqrt (/ 2.0 64)) (tensor-randn '(64 32) 5)))) (newline)
(write (equal? (he-normal '(4 3 5) 1) (* (sqrt (/ 2.0 20)) (tensor-randn '(4 3 5) 1)))) (newline)
(define big (he-normal '(200 1000) 6))
(define (near? x want tol) (< (abs (- x want)) tol))
(define (std t) (sqrt (tensor-mean (square (- t (tensor-mean t))))))
(write (list (near? (tensor-mean big) 0.0 0.002) (near? (std big) (sqrt (/ 2.0 200)) 0.001))) (newline)

;; glorot-uniform: b * (2u - 1), b = sqrt(6 / (fan-in + fan-out)), u tensor-rand's.
(define g (glorot-uniform '(64 32) 5))
(define bound (sqrt (/ 6.0 (+ 64 32))))
(write (equal? g (* bound (- (* 2.0 (tensor-rand '(64 32) 5)) 1.0)))) (newline)
(define gbig (glorot-uniform '(300 700) 7))
(define b2 (sqrt (/ 6.0 1000)))
(write (list (<= (- b2) (- (tensor-max (- gbig)))) (< (tensor-max gbig) b2)
             (near? (tensor-mean gbig) 0.0 0.001) (near? (std gbig) (/ b2 (sqrt 3.0)) 0.001)))
(newline)
(write (equal? (glorot-uniform '(2 3 4) 1) (* (sqrt (/ 6.0 20)) (- (* 2.0 (tensor-rand '(2 3 4) 1)) 1.0))))
(newline)

(define (err thunk) (guard (e (#t (display (error-object-message e)) (newline))) (thunk)))
(err (lambda () (random-permutation -1 1)))
(err (lambda () (random-permutation 2.0 1)))
(err (lambda () (random-permutation 5 'seed)))
(err (lambda () (he-normal '(5) 1)))
(err (lambda () (he-normal 5 1)))
(err (lambda () (he-normal '(2 0) 1)))
(err (lambda () (he-normal '(2 2) 1.5)))
(err (lambda () (glorot-uniform '() 1)))
(err (lambda () (glorot-uniform '(2 a) 1)))
(err (lambda () (glorot-uniform '(2 2) "s")))

;; A generator written with call/cc, walking a tree of 2^17 leaves ten times:
;; every element crosses two continuations (into the walk, back to the caller).
(define (make-tree d) (if (= d 0) 1 (cons (make-tree (- d 1)) (make-tree (- d 1)))))

(define (tree-generator tree)
  (define return #f)
  (define resume #f)
  (define (walk t)
    (if (pair? t)
        (begin (walk (car t)) (walk (cdr t)))
        (call/cc (lambda (k) (set! resume k) (return t)))))
  (lambda ()
    (call/cc
     (lambda (r)
       (set! return r)
       (if resume
           (resume #f)
           (begin (walk tree) (return 'done)))))))

(define tree (make-tree 17))
(define (sum-gen g acc)
  (let ((x (g)))
    (if (eq? x 'done) acc (sum-gen g (+ acc x)))))
(define (repeat n acc)
  (if (= n 0) acc (repeat (- n 1) (+ acc (sum-gen (tree-generator tree) 0)))))
(display (repeat 10 0))
(newline)

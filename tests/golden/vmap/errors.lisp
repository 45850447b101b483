;; vmap's errors: its own arguments when it is called, the mapped procedure's
;; arguments when that is called, eagerly and inside a trace alike.
(define (show thunk)
  (display (guard (e (#t (condition/report-string e))) (thunk)))
  (newline))
(define x (tensor '((1.0 2.0 3.0) (4.0 5.0 6.0))))
(define (add a b) (+ a b))
;; not a procedure; bad IN-AXES and OUT-AXES
(show (lambda () (vmap 5)))
(show (lambda () (vmap add "0")))
(show (lambda () (vmap add '(0 x))))
(show (lambda () (vmap add 0 'last)))
;; IN-AXES of the wrong length
(show (lambda () ((vmap add '(0)) x x)))
(show (lambda () ((vmap add '(0 0 0)) x x)))
;; an axis out of range, a mapped number, nothing mapped
(show (lambda () ((vmap add '(0 2)) x x)))
(show (lambda () ((vmap add '(0 -3)) x x)))
(show (lambda () ((vmap add '(0 0)) x 1.0)))
(show (lambda () ((vmap add '(#f #f)) x x)))
(show (lambda () ((vmap add '(0 0)) (list x 1.0) x)))
;; mapped axes of different lengths
(show (lambda () ((vmap add '(0 1)) x x)))
(show (lambda () ((vmap add '(0 0)) (list x (tensor '(1.0 2.0 3.0))) x)))
;; OUT-AXES past the result's axes
(show (lambda () ((vmap add 0 2) x x)))
;; an argument that is not a number or tensor
(show (lambda () ((vmap add) x "s")))
;; inside jit and graph-eval: the same texts
(show (lambda () ((jit (vmap add '(0 1))) x x)))
(show (lambda () (graph-eval (vmap add '(0 2)) x x)))
;; errors of F itself name F's op
(show (lambda () ((vmap (lambda (a) (matmul a (tensor '((1.0 2.0)))))) x)))
(show (lambda () ((vmap (lambda (a) (tensor-take a (tensor '(0 5))))) x)))
(show (lambda () ((vmap (lambda (a i) (tensor-take a i)) '(0 0)) x (tensor '(1.0 3.0)))))
;; random numbers from a mapped key
(show (lambda () ((vmap (lambda (k) (tensor-rand '(2) (tensor-sum k)))) (tensor '(1.0 2.0)))))
;; a result that is not a number, tensor or tree of them
(show (lambda () ((vmap (lambda (a) 'no)) x)))
;; a loop on mapped values is batched (tests/golden/vmap/loops.lisp); what its body
;; cannot batch is the same error: random numbers from a mapped key in a step, a
;; mapped carry past the rank limit (a rank-8 carry gains the batch axis)
(show (lambda () ((vmap (lambda (a) (fori-loop 3 (lambda (i c) (tensor-add c (tensor-rand '(3) (tensor-sum c)))) a))) x)))
(show (lambda () ((vmap (lambda (a) (fori-loop 2 (lambda (i c) (tensor-mul c a)) (reshape a '(1 1 1 1 1 1 1 1)))))
                  (tensor '(1.0 2.0)))))
;; a mapped while-loop runs the body on examples that are done (their results are
;; dropped), so an error there is raised though the slices' loops never meet it: the
;; first example stops after one step, where its next index would be 5
(define (count-up n w)
  (while-loop (lambda (c) (tensor-lt c n))
              (lambda (c) (tensor-add c (tensor-take (tensor '(1.0 1.0 1.0)) (tensor-sum (tensor-mul c w)))))
              (tensor 0.0)))
(show (lambda () ((vmap count-up) (tensor '(1.0 3.0)) (tensor '(5.0 1.0)))))
(write (list (count-up (tensor 1.0) (tensor 5.0)) (count-up (tensor 3.0) (tensor 1.0))))
(newline)
;; a loop that does not touch mapped values runs once, outside the batch
(write ((vmap (lambda (a) (tensor-add a (fori-loop 3 (lambda (i c) (* c 2.0)) 1.0)))) (tensor '((1.0) (2.0)))))
(newline)

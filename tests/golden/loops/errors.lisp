;; Every error of fori-loop, scan and while-loop, eagerly and traced (the same text).
(define (try thunk)
  (guard (e (#t (display (error-object-message e))
                (for-each (lambda (x) (display " ") (write x)) (error-object-irritants e))
                (newline)))
    (display (thunk)) (newline)))
(define (both name f . args)
  (display name) (newline)
  (display "  eager:  ") (try (lambda () (apply f args)))
  (display "  traced: ") (try (lambda () (apply graph-eval f args))))

;; Arguments.
(try (lambda () (fori-loop -1 (lambda (i c) c) 1.0)))
(try (lambda () (fori-loop 2.5 (lambda (i c) c) 1.0)))
(try (lambda () (fori-loop 2 5 1.0)))
(try (lambda () (scan 5 1.0 (tensor '(1.0)))))
(try (lambda () (while-loop (lambda (c) #f) 'body 1.0)))
(try (lambda () (graph-eval (lambda (n) (fori-loop n (lambda (i c) c) 1.0)) 3.0)))
;; INIT and XS.
(try (lambda () (fori-loop 2 (lambda (i c) c) '())))
(try (lambda () (fori-loop 2 (lambda (i c) c) (list 1.0 "a"))))
(both "XS of a number" (lambda (c) (scan (lambda (c x) (cons c x)) c 5.0)) 1.0)
(both "XS of a rank-0 tensor" (lambda (c) (scan (lambda (c x) (cons c x)) c (list (tensor '(1.0)) (reshape (tensor '(1.0)) '())))) 1.0)
(both "XS lengths" (lambda (c) (scan (lambda (c x) (cons c x)) c (list (tensor '(1.0 2.0)) (tensor '(1.0 2.0 3.0))))) 1.0)
;; The carry must keep its structure and each leaf its kind and shape.
(both "structure" (lambda (c) (fori-loop 2 (lambda (i c) (list (car c))) c)) (list 1.0 2.0))
(both "shape" (lambda (c) (fori-loop 2 (lambda (i c) (concat (list c c))) c)) (tensor '(1.0 2.0)))
(both "kind" (lambda (c) (fori-loop 2 (lambda (i c) (tensor-add (tensor '(0.0)) c)) c)) 1.0)
(both "scan carry" (lambda (c xs) (scan (lambda (c x) (cons (list c) x)) c xs)) 1.0 (tensor '(1.0 2.0)))
(both "while carry" (lambda (c) (while-loop (lambda (c) (< c 2.0)) (lambda (c) (tensor '(1.0 2.0))) c)) 1.0)
;; scan's F must return a pair; its Ys keep one structure and shape (eagerly
;; they are checked at every step: traced, F runs once).
(both "F's result" (lambda (c xs) (scan (lambda (c x) c) c xs)) 1.0 (tensor '(1.0 2.0)))
(try (lambda () (scan (lambda (c x) (cons c (if (> x 1.5) (list x) x))) 1.0 (tensor '(1.0 2.0)))))
(try (lambda () (scan (lambda (c x) (cons c (if (> x 1.5) (tensor (list x x)) (tensor (list x))))) 1.0 (tensor '(1.0 2.0)))))
;; COND's result.
(both "COND" (lambda (c) (while-loop (lambda (c) c) (lambda (c) c) c)) (tensor '(1.0 2.0)))
(try (lambda () (while-loop (lambda (c) 'go) (lambda (c) c) 1.0)))
;; graph-grad through a while-loop is refused, naming it; fori-loop and scan are not.
(try (lambda () (graph-grad (lambda (x) (while-loop (lambda (c) (< c 10.0)) (lambda (c) (* c 2.0)) x)) 1.0)))
(try (lambda () ((grad (lambda (x) (while-loop (lambda (c) (< c 10.0)) (lambda (c) (* c 2.0)) x))) 1.0)))
;; A while-loop whose carry does not reach the loss is no obstacle.
(display (graph-grad (lambda (x) (+ x (tensor-sum (while-loop (lambda (c) (< (tensor-sum c) 10.0)) (lambda (c) (tensor-mul c 2.0)) (tensor '(1.0)))))) 1.0)) (newline)
;; Errors inside the body carry the body's own message; a bad index inside a
;; traced loop is found when the graph runs, after the loop gave its buffers back.
(both "body error" (lambda (x) (fori-loop 2 (lambda (i c) (tensor-add c (tensor '(1.0 2.0 3.0)))) x)) (tensor '(1.0 2.0)))
(both "bad index" (lambda (x i) (fori-loop 3 (lambda (k c) (tensor-add c (tensor-take x i))) x)) (tensor '(1.0 2.0)) (tensor '(5.0)))
;; A symbolic value of the body does not escape it.
(define kept #f)
(try (lambda () (graph-eval (lambda (x) (fori-loop 2 (lambda (i c) (set! kept c) c) x) (* kept 2.0)) 1.0)))

;; plot draws a fixed 60x15 ASCII chart on the current output port; the picture
;; depends only on the arguments.
(define loss (map (lambda (i) (+ 0.05 (exp (- (/ i 15.0))))) (iota 100)))
(define val (map (lambda (i) (+ 0.12 (* 0.9 (exp (- (/ i 20.0)))))) (iota 100)))
;; Two named series of the same length and a title.
(plot (cons "train" loss) (cons "validation" val) "loss per epoch")
;; Integers, an unnamed series: the legend says "series 1".
(plot '(1 2 3))
;; A rank-1 tensor with more points than columns: each column shows their spread.
(plot (tensor (map (lambda (i) (sin (/ i 5.0))) (iota 200))))
;; A vector, negative values, and a tensor series with a name.
(plot (vector -3 -1 -2 0) (cons "t" (tensor '(0.5 -0.5))))
;; plot returns nothing to print, and writes where the current output port points.
(define text (with-output-to-string (lambda () (plot '(0 1)))))
(display (string-length text)) (newline)
(display (equal? text (with-output-to-string (lambda () (plot '(0 1))))))
(newline)

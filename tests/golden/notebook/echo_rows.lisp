;; Tensors by rows (SPEC §19, docs/notebook.md): what the REPL and the notebook kernel
;; echo, shown through %echo-string (a golden test runs a script, not the REPL).
(define (echo x) (display (%echo-string x)) (newline))
;; Rank 2: one row per line, every element right-aligned to the widest shown.
(echo (tensor '((1 2 3) (4 5 6))))
(echo (tensor '((1 -2.5) (10 3))))
(echo (tensor (list (list 1e-300 2) (list -inf.0 +nan.0))))
;; An axis longer than 6: its first 3 and last 3 entries with ... between.
(echo (reshape (arange 56) '(8 7)))
(echo (reshape (arange 7) '(1 7)))
(echo (reshape (arange 6) '(6 1)))
;; Rank 3: blocks separated by a blank line; rank 4 by two.
(echo (reshape (arange 8) '(2 2 2)))
(echo (reshape (arange 16) '(2 2 2 2)))
(echo (reshape (arange 64) '(8 2 4)))
;; Rank 0 and 1, and everything else: write form, one line.
(echo (tensor 7))
(echo (tensor '(1 2)))
(echo (arange 10))
(echo (list (tensor '((1 2) (3 4))) "s" #\a))
;; write and display keep one line whatever the rank.
(write (tensor '((1 2) (3 4)))) (newline)
(display (reshape (arange 8) '(2 2 2))) (newline)

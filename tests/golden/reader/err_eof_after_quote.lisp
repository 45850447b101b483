;; Input ends right after a quote.
(display "ok")
(newline)
'

;; A block comment that never ends.
(display "ok")
(newline)
#| open
  #| nested |#
still open

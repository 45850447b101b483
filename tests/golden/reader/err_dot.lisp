;; A dot with nothing before it.
(display '( . 1))

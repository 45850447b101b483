;; A [ closed by ).
(display [list 1 2))

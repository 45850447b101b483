;; An unclosed [ is named as such.
[let ((x 1))
  x

;; A string escape must name a Unicode scalar value.
(write "\x10FFFF;")
(newline)
(write "ok \xDFFF; no")

;; A character literal must name a Unicode scalar value: no surrogates.
(write #\xD7FF)
(newline)
(write #\xD800)

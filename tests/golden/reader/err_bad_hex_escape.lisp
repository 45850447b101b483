;; \x must be followed by hex digits and a semicolon.
(display "\x41 no semicolon")

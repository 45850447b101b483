;; Raising a string, uncaught, at top level.
(raise "a raised string")

;; Number literals: 64-bit integers and IEEE doubles (docs/language.md).
(write (list 42 -7 +3 0 -0)) (newline)
(write (list 9223372036854775807 -9223372036854775808)) (newline)
(write (list (integer? 42) (integer? -7) (exact? +3))) (newline)
(write (list 1.5 -0.25 1e3 .5 -.5 +.5 1.e2 1E3 2.5e-3 -1.5e+2)) (newline)
(write (list +inf.0 -inf.0 +nan.0)) (newline)
(write (list (float? 1e3) (float? .5) (float? 1.) (nan? +nan.0))) (newline)
(write (list (= +inf.0 (/ 1.0 0)) (< -inf.0 -1e308))) (newline)
(write (list 0.0 -0.0 100.0 1e21 1e-7)) (newline)
(write (list #x1F #b101 #o17 #d99 #xff)) (newline)
;; Not numbers: these read as symbols.
(write (map symbol? '(+ - ... 1+ -a a1 .foo +.))) (newline)

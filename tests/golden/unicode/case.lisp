;; Full case mappings of strings (a character may become several) and the -ci
;; comparisons, which compare full case foldings.
(define (p x) (write x) (newline))
(p (string-upcase "straße"))
(p (string-downcase "STRASSE"))
(p (string-foldcase "Straße"))
(p (string-upcase "ǰ"))
(p (string-length (string-upcase "ǰ")))
(p (string-downcase "ſ"))
(p (string-foldcase "ſ"))
;; a final capital sigma lower-cases to ς; case folding always gives σ
(p (string-downcase "ΜΈΛΟΣ ΕΝΌΣ"))
(p (string-foldcase "ΜΈΛΟΣ ΕΝΌΣ"))
(p (string-upcase "γλώσσα"))
(p (string-downcase "ÀÉÎÕÜ Ǆ"))
(p (string-upcase "ﬁ"))
(p (string-downcase "İ"))
(p (string-length (string-downcase "İ")))
;; ASCII strings map byte by byte and stay ASCII
(p (list (string-upcase "Hello, World! 123") (string-downcase "Hello, World! 123")))
;; -ci comparisons
(p (string-ci=? "Straße" "STRASSE" "strasse"))
(p (string-ci=? "ΑΒΓ" "αβγ"))
(p (list (string-ci<? "ΑΒΓ" "αβδ") (string-ci>? "b" "A") (string-ci<=? "λ" "Λ") (string-ci>=? "μ" "Λ")))
(p (string-ci=? "ΜΈΛΟΣ" "μέλος" "μέλοσ"))
(p (list (string=? "λ" "Λ") (string<? "Λ" "λ")))

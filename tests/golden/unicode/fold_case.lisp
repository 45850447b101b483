;; #!fold-case folds symbols and character names with the full Unicode case
;; folding (as string-foldcase); single characters and |barred| names keep theirs.
(define (p x) (write x) (newline))
#!fold-case
(p (list 'ΑΒΓ 'Straße (eq? 'STRASSE 'straße) 'ΜΈΛΟΣ))
(p (list #\Λ #\SPACE #\X3BB '|ΑΒΓ|))
#!no-fold-case
(p (list 'ΑΒΓ (eq? 'STRASSE 'straße)))
(define port (open-input-string "#!fold-case ΣΊΣΥΦΟΣ Ǆ"))
(p (list (read port) (read port)))

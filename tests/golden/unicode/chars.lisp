;; Characters are Unicode scalar values: literals written as themselves or in
;; hex, the whole code point range, and classes and case from the Unicode tables.
(define (p x) (write x) (newline))
(p (list #\λ #\Λ #\ä #\中 #\😀))
(p (list #\x3bb #\x3BB #\x0 #\x10FFFF #\xA0))
(p (map char->integer (list #\λ #\x10FFFF #\😀 #\x7f)))
(p (list (integer->char #x3bb) (integer->char 0) (integer->char #xD7FF) (integer->char #xE000)
         (integer->char #x10FFFF)))
(p (char->integer (integer->char #x1F600)))
;; classes: letters of any script, Nd digits of any script, Unicode white space
(p (map char-alphabetic? (list #\a #\λ #\中 #\ä #\1 #\٤ #\space #\_)))
(p (map char-numeric? (list #\0 #\٤ #\x0E50 #\x0966 #\xFF19 #\a #\x2167)))
(p (map digit-value (list #\0 #\9 #\٤ #\x0E50 #\x0966 #\xFF19 #\a #\x2167 #\½)))
(p (map char-whitespace? (list #\space #\tab #\newline #\xA0 #\x3000 #\x2028 #\x200B #\a)))
(p (map char-upper-case? (list #\A #\Λ #\a #\λ #\1 #\中)))
(p (map char-lower-case? (list #\a #\λ #\ß #\A #\Λ #\1 #\中)))
;; simple (one-character) case mappings
(p (list (char-upcase #\λ) (char-downcase #\Λ) (char-upcase #\ä) (char-downcase #\Ä)))
(p (list (char-upcase #\ß) (char-upcase #\ÿ) (char-downcase #\x130) (char-upcase #\1)))
(p (list (char-foldcase #\Σ) (char-foldcase #\σ) (char-foldcase #\ς) (char-foldcase #\x1E9E)
         (char-foldcase #\x130) (char-foldcase #\A)))
(p (list (char-ci=? #\λ #\Λ) (char-ci=? #\σ #\ς #\Σ) (char-ci<? #\a #\Λ) (char=? #\λ #\Λ)))
(p (list (char<? #\a #\λ #\中 #\😀) (char>? #\😀 #\中)))

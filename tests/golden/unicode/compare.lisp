;; Wide strings wherever strings go: ordering, equal?, hash tables with string
;; keys, assoc/member, symbols with non-ASCII names.
(define (p x) (write x) (newline))
;; code point order
(p (list (string<? "a" "λ") (string<? "λ" "a") (string<? "z" "é" "λ" "中" "😀") (string>? "😀" "\xFFFF;")))
(p (sort (list "λ" "b" "é" "a" "中" "A") string<?))
;; equal? and eqv? on strings built differently
(define narrow (string-copy "abc"))
(define wide (string-copy "λbc"))
(string-set! wide 0 #\a)
(p (list (equal? narrow wide) (string=? narrow wide) (equal? "λ" (string #\λ)) (equal? "λ" "Λ")))
;; hash tables: a key found whatever the width of the string it was stored with
(define h (make-hash-table))
(hash-table-set! h "λ" 1)
(hash-table-set! h "abc" 2)
(hash-table-set! h "中文" 3)
(p (list (hash-table-ref/default h (string #\λ) #f) (hash-table-ref/default h wide #f)
         (hash-table-ref/default h (list->string (list #\中 #\文)) #f) (hash-table-ref/default h "Λ" 'none)))
(p (assoc "λ" '(("a" . 1) ("λ" . 2))))
(p (member "中" '("a" "中" "b")))
;; symbols
(define sym 'λx)
(p (list sym (symbol->string sym) (string->symbol "中文") (eq? sym (string->symbol "λx"))))
(p (list (symbol? 'σ) (eq? 'σ 'Σ) (string-length (symbol->string '😀😀))))
(define λ (lambda (x) (* x 2)))
(p (λ 21))
(define (größe liste) (length liste))
(p (größe '(1 2 3)))
(p '(α β . γ))
(p (string->symbol "with space λ"))

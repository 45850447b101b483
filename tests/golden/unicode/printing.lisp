;; display shows strings and chars raw; write prints their UTF-8 text and
;; escapes only control characters (C0, DEL and C1).
(define (both x) (write x) (display " ") (display x) (newline))
(both "λ 中文 😀")
(both #\λ)
(both #\😀)
(write "é\t\n\x7f;\x85;\x9f;\xA0;end") (newline)
(write (string #\x1 #\x80)) (newline)
(write (list #\x85 #\x9f #\x7f #\xA0 #\x1 #\x3000)) (newline)
(write '(λ |a b| |λ\x85;|)) (newline)
(write (list "λ" #\λ 'λ (vector "中" #\中))) (newline)
;; format and str: widths count characters
(display (format "[~a] [~s] [~5a] [~5s]" "λ" "λ" "λμ" "λ")) (newline)
(display (format "[~6a]" "中文字")) (newline)
(display (str "λ" 1 #\μ '中)) (newline)
;; error messages carry wide strings intact
(guard (e (#t (display (error-object-message e)) (display " | ") (write (error-object-irritants e)) (newline)))
  (error "fehlgeschlagen: größe" "λ" #\μ 'σ))
(guard (e (#t (display (error-object-message e)) (newline)))
  (string-ref "λμ" 5))
(guard (e (#t (display (error-object-message e)) (newline)))
  (car "中文"))
(error "zuletzt: λ" '中)

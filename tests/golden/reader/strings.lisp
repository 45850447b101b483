;; String literals and every escape of docs/language.md (shown with write, and by code).
(write "plain") (newline)
(write "tab\there") (newline)
(write "line\nbreak") (newline)
(write "cr\rhere") (newline)
(write "back\\slash") (newline)
(write "quote\"inside") (newline)
(write (map char->integer (string->list "\a\0\x41;\x7f;"))) (newline)
(write (string-length "\x0;")) (newline)
(write "\x48;\x65;llo") (newline)
(display "display shows \"raw\" text\\") (newline)
(write "") (newline)
(write (string-length "a\nb")) (newline)
(write "multi
line") (newline)
(write "line \
   continued") (newline)
(write "semicolon ; and hash #t and parens ()") (newline)

;; Character literals (docs/language.md).
(write (list #\a #\Z #\0 #\( #\) #\; #\" #\\)) (newline)
(write (map char->integer (list #\space #\newline #\tab #\nul #\x41 #\x7f))) (newline)
(write (list #\space #\newline #\tab #\nul #\x41)) (newline)
(write (map char->integer (list #\return #\alarm #\backspace #\delete #\escape #\null))) (newline)
(write (list (char? #\a) (char? "a") (char->integer #\x))) (newline)
(display (list #\a #\b)) (newline)
(write (string #\h #\i)) (newline)

;; Body forms included by (text utils).
(define (shout s) (string-append (string-upcase s) "!"))

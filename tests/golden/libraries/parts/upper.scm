;; Included with include-ci: read as if written in lower case.
(DEFINE (LOUD-NAME) 'LOUD)

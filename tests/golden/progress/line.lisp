;; The text of with-progress's line, from %progress-line (label, count, total,
;; microseconds since the start, status or #f, terminal width or #f): every shape
;; the live bar can take, without a terminal or a clock.
(define (line . args) (write (apply %progress-line args)) (newline))
(line "train" 0 100 0 #f #f)                      ; the first draw: no rate, no ETA yet
(line "train" 37 100 3000000 0.123456789 #f)      ; a float status: 6 significant digits
(line "train" 100 100 5000000 "done" #f)          ; finished: no ETA
(line "" 150 100 5000000 1 #f)                    ; no label; past TOTAL the bar stays full
(line "slow" 1 10 5000000 +nan.0 #f)              ; under one tick a second: seconds per tick
(line "fast" 5000 10000 2000000 -inf.0 #f)
(line "tabs\tand\nnewlines" 1 2 1000000 "a\rb" #f) ; control characters become spaces
(line "zero" 0 0 0 #f 80)                         ; TOTAL 0: nothing to wait for
(line "hours" 10 20 4000000000 #f 80)             ; from an hour on: h:mm:ss
(line "cut" 1 10000 4000000 "a long status that does not fit" 40) ; WIDTH-1 columns at most
(line "stalled" 1 10 1e300 #f #f)                 ; no ETA worth showing

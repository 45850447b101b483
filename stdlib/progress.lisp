;;; progress.lisp — with-progress, a live progress line on stderr (SPEC §13,
;;; docs/progress-and-plots.md). Embedded into the kiln binary after the training
;;; library (stdlib/embed.cmake, stdlib/boot.cpp).
;;; The line's text is %progress-line's (stdlib/progress_line.cpp); this file owns
;;; the count, the clock and when to draw. Nothing is written unless the error port
;;; is a terminal, so logs and test output never see the bar; in a notebook
;;; (docs/notebook.md) the line is shown under the cell instead, replaced in place.

;; Redraws are at least this many microseconds apart: a tick per minibatch may come
;; thousands of times a second, and a terminal redraw costs far more than a tick.
(define %progress-redraw-interval 100000)

(define (with-progress total label proc)
  (if (not (and (exact-integer? total) (>= total 0)))
      (error "with-progress: argument 1 (TOTAL) must be a non-negative integer, got" total))
  (if (not (string? label))
      (error "with-progress: argument 2 (LABEL) must be a string, got" label))
  (if (not (procedure? proc))
      (error "with-progress: argument 3 (PROC) must be a procedure, got" proc))
  (let* ((port (current-error-port))
         (live (terminal-port? port))
         (notebook (and (not live) (%rich-display-port? port)))
         (width (and live (terminal-width port)))
         (start (current-jiffy))
         (last-draw start)
         (shown 0)          ; length of the line on screen, to blank what a shorter one leaves
         (finished #f)
         (opened #f)        ; in a notebook: the progress display exists
         (count 0)
         (status #f))
    (define (draw now)
      (let* ((line (%progress-line label count total (- now start) status width))
             (n (string-length line)))
        (if notebook
            (begin (%display-progress line (not opened)) (set! opened #t))
            (write-string (string-append "\r" line (make-string (max 0 (- shown n)) #\space)) port))
        (set! shown n)
        (set! last-draw now)))
    (define (tick . args)
      (if (pair? args)
          (let ((s (car args)))
            (if (pair? (cdr args))
                (error "with-progress: (tick [STATUS]) takes at most 1 argument, got" (length args)))
            (if (not (or (string? s) (number? s)))
                (error "with-progress: (tick STATUS): STATUS must be a string or a number, got" s))
            (set! status s)))
      (set! count (+ count 1))
      (if (and (or live notebook) (not finished))
          (let ((now (current-jiffy)))
            (if (>= (- now last-draw) %progress-redraw-interval) (draw now))))
      (if #f #f))
    (if (or live notebook)
        (dynamic-wind
         (lambda () (draw start))
         (lambda () (proc tick))
         ;; Also on an error or an escape: the error report then starts on its own line.
         (lambda ()
           (set! finished #t)
           (draw (current-jiffy))
           (if live (newline port))))
        (proc tick))))

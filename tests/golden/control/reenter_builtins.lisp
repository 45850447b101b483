;; A continuation captured inside the procedure a higher-order builtin calls
;; can be re-entered after the builtin has returned. Each case below captures
;; once, then re-enters twice with other values: the builtin goes on from the
;; captured point each time, and (R7RS 6.10) the results it returned earlier
;; are not changed by the later runs.
(define k* #f)
(define results '())

;; Called with each return of the builtin; re-enters k* with the next of
;; AGAIN until all have been used, then gives every return, first first.
(define (collect r again)
  (set! results (cons r results))
  (if (< (length results) (+ 1 (length again)))
      (k* (list-ref again (- (length results) 1)))
      (let ((all (reverse results)))
        (set! results '())
        all)))

;; The identity, capturing k* at the element equal to TRIGGER.
(define (hook trigger)
  (lambda (x) (call/cc (lambda (k) (if (equal? x trigger) (set! k* k)) x))))

(define (show label x) (display label) (display ": ") (write x) (newline))

;; The R7RS 6.10 example (Guile prints (1 2 3), (1 10 3), (1 20 3)).
(show "map" (collect (map (hook 2) '(1 2 3)) '(10 20)))
(show "map, two lists"
      (collect (map (lambda (x y) (+ ((hook 2) x) y)) '(1 2 3) '(100 200 300)) '(10 20)))
;; More lists than a walk keeps on the C++ stack (8).
(show "map, nine lists"
      (collect (apply map (lambda (x . rest) ((hook 2) x)) '(1 2 3) (make-list 8 '(0 0 0))) '(10 20)))
(show "vector-map" (collect (vector-map (hook 2) #(1 2 3)) '(10 20)))
(show "string-map" (collect (string-map (hook #\b) "abc") '(#\x #\y)))
(show "tensor-map" (collect (tensor-map (hook 2.0) (tensor '(1.0 2.0 3.0))) '(10.0 20.0)))
(show "list-tabulate" (collect (list-tabulate 3 (hook 1)) '(10 20)))
(show "append-map" (collect (append-map (lambda (x) (list ((hook 2) x) x)) '(1 2 3)) '(10 20)))
(show "filter-map" (collect (filter-map (hook 2) '(1 2 3)) '(#f 20)))
(show "filter" (collect (filter (lambda (x) (odd? ((hook 2) x))) '(1 2 3)) '(1 4)))
(show "remove" (collect (remove (lambda (x) (odd? ((hook 2) x))) '(1 2 3)) '(1 4)))
(show "partition"
      (collect (call-with-values (lambda () (partition (lambda (x) (odd? ((hook 2) x))) '(1 2 3))) list)
               '(1 4)))
(show "fold" (collect (fold (lambda (x acc) (+ ((hook 2) x) acc)) 0 '(1 2 3)) '(10 20)))
(show "fold-left" (collect (fold-left (lambda (acc x) (+ acc ((hook 2) x))) 0 '(1 2 3)) '(10 20)))
(show "fold-right" (collect (fold-right (lambda (x acc) (cons ((hook 2) x) acc)) '() '(1 2 3)) '(10 20)))
(show "reduce" (collect (reduce (lambda (x acc) (+ ((hook 2) x) acc)) 0 '(1 2 3)) '(10 20)))
(show "any" (collect (any (lambda (x) (and (> ((hook 2) x) 5) x)) '(1 2 3)) '(10 1)))
(show "every" (collect (every (lambda (x) ((hook 2) x)) '(1 2 3)) '(#f 20)))
(show "count" (collect (count (lambda (x) (odd? ((hook 2) x))) '(1 2 3)) '(1 4)))
(show "find" (collect (find (lambda (x) (> ((hook 2) x) 2)) '(1 2 3)) '(10 0)))
(show "take-while" (collect (take-while (lambda (x) (< ((hook 2) x) 5)) '(1 2 3)) '(10 0)))
(show "member with a predicate"
      (collect (member 2 '(1 2 3) (lambda (x y) (= x ((hook 1) y)))) '(2 0)))
(show "assoc with a predicate"
      (collect (assoc 2 '((1 . a) (2 . b) (3 . c)) (lambda (x y) (= x ((hook 1) y)))) '(2 0)))
(show "apply" (collect (apply (lambda (x) (+ 1 ((hook 1) x))) '(1)) '(10 20)))

;; sort: the first comparison answers #t, then #f, then #t again.
(define (capturing-less)
  (let ((first #t))
    (lambda (a b)
      (if first
          (begin (set! first #f) (call/cc (lambda (k) (set! k* k) (< a b))))
          (< a b)))))
(show "sort" (collect (sort '(3 1 2) (capturing-less)) '(#f #t)))
(show "sort, a vector" (collect (sort #(3 1 2) (capturing-less)) '(#f #t)))
(show "list-sort" (collect (list-sort (capturing-less) '(3 1 2 5 4)) '(#f #t)))

;; Hash tables: the walk goes on again from the captured entry.
(define ht (make-hash-table))
(hash-table-set! ht 'a 1)
(define calls 0)
(show "hash-table-walk"
      (collect (begin (hash-table-walk ht (lambda (key value)
                                            (call/cc (lambda (k) (set! k* k)))
                                            (set! calls (+ calls 1))))
                      calls)
               '(#f #f)))
(show "hash-table-fold"
      (collect (hash-table-fold ht (lambda (key value acc) (+ ((hook 1) value) acc)) 0) '(10 20)))
(show "hash-table-update!"
      (collect (begin (hash-table-update! ht 'a (hook 1)) (hash-table-ref ht 'a)) '(10 20)))

;; A generator over map: each element is handed out in turn, then the list.
(define (map-generator f lst)
  (define return #f)
  (define resume
    (lambda (ignored)
      (let ((all (map (lambda (x) (call/cc (lambda (k) (set! resume k) (return x)))) lst)))
        (return (list 'done all)))))
  (lambda () (call/cc (lambda (r) (set! return r) (resume #f)))))
(define gen (map-generator car '(a b c)))
(show "generator" (gen))
(show "generator" (gen))
(show "generator" (gen))
(show "generator" (gen))

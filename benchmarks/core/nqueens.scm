;; N-queens by backtracking over lists, counting all solutions for 8, repeated.
(define (ok? row dist placed)
  (or (null? placed)
      (and (not (= (car placed) (+ row dist)))
           (not (= (car placed) (- row dist)))
           (not (= (car placed) row))
           (ok? row (+ dist 1) (cdr placed)))))

(define (try-rows row n placed)
  (if (> row n)
      0
      (+ (if (ok? row 1 placed) (queens n (cons row placed)) 0)
         (try-rows (+ row 1) n placed))))

(define (queens n placed)
  (if (= (length placed) n)
      1
      (try-rows 1 n placed)))

(define (repeat k total)
  (if (= k 0)
      total
      (repeat (- k 1) (+ total (queens 8 '())))))

(display (repeat 50 0))
(newline)

;; List building and a hand-written stable merge sort of 200 000 integers.
(define (random-list n seed)
  ;; Park-Miller generator: products stay below 2^46.
  (let loop ((i 0) (x seed) (acc '()))
    (if (= i n)
        acc
        (let ((next (modulo (* x 16807) 2147483647)))
          (loop (+ i 1) next (cons (modulo next 1000000) acc))))))

(define (merge a b)
  ;; Iterative merge: accumulate in reverse, then reverse once.
  (let loop ((a a) (b b) (acc '()))
    (cond ((null? a) (append (reverse acc) b))
          ((null? b) (append (reverse acc) a))
          ((< (car b) (car a)) (loop a (cdr b) (cons (car b) acc)))
          (else (loop (cdr a) b (cons (car a) acc))))))

(define (split lst)
  ;; Returns the two halves of lst as a pair.
  (let loop ((slow lst) (fast lst) (front '()))
    (if (or (null? fast) (null? (cdr fast)))
        (cons (reverse front) slow)
        (loop (cdr slow) (cddr fast) (cons (car slow) front)))))

(define (merge-sort lst)
  (if (or (null? lst) (null? (cdr lst)))
      lst
      (let ((halves (split lst)))
        (merge (merge-sort (car halves)) (merge-sort (cdr halves))))))

(define (sorted? lst)
  (or (null? lst) (null? (cdr lst))
      (and (<= (car lst) (cadr lst)) (sorted? (cdr lst)))))

(define (checksum lst)
  ;; Position-weighted sum, so any misplaced element changes it.
  (let loop ((l lst) (i 1) (acc 0))
    (if (null? l)
        acc
        (loop (cdr l) (+ i 1) (modulo (+ acc (* i (car l))) 1000000007)))))

(define sorted (merge-sort (random-list 200000 42)))
(display (list (length sorted) (sorted? sorted) (car sorted) (checksum sorted)))
(newline)

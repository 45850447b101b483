; Nesting a million deep through cars and vector elements: write, display,
; equal? and error messages take heap for it, not C stack, and never crash.
(define (nest-lists n)
  (let loop ((i 0) (x 'leaf))
    (if (= i n) x (loop (+ i 1) (list x i)))))
(define (nest-vectors n)
  (let loop ((i 0) (x 'leaf))
    (if (= i n) x (loop (+ i 1) (vector x)))))
(define (text-of x) (call-with-output-string (lambda (p) (write x p))))

(define a (nest-lists 1000000))
(define b (nest-lists 1000000))
(display (equal? a b)) (newline)
(display (equal? a (nest-lists 999999))) (newline)
(define s (text-of a))
(display (string-length s)) (newline)
(display (substring s 0 12)) (newline)
(display (substring s (- (string-length s) 20) (string-length s))) (newline)
(display (string=? s (call-with-output-string (lambda (p) (display a p))))) (newline)

(define v (nest-vectors 1000000))
(display (equal? v (nest-vectors 1000000))) (newline)
(display (string-length (text-of v))) (newline)

; a differing leaf at the bottom
(define c (nest-lists 1000000))
(let loop ((x c))
  (if (pair? (car x)) (loop (car x)) (set-car! x 'other)))
(display (equal? a c)) (newline)

; a cycle at the bottom of the nesting gets a label
(define d (nest-lists 3000))
(let loop ((x d))
  (if (pair? (car x)) (loop (car x)) (set-car! x d)))
(define t (text-of d))
(display (substring t 0 6)) (newline)
(display (substring t (- (string-length t) 12) (string-length t))) (newline)

; an error whose irritant nests deeply
(guard (e (#t (display (string-length (text-of e))) (newline)))
  (error "too deep" (nest-lists 100000)))

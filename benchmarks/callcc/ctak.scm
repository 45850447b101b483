;; call/cc at every level of a deep recursion, each continuation used once as an
;; escape from deeper down (the shape of r7rs-benchmarks' ctak): each capture
;; runs inside the extent of the one above it, so it copies only the frames
;; pushed since then and shares the rest (docs/continuations.md).
(define (ctak x y z)
  (call-with-current-continuation (lambda (k) (ctak-aux k x y z))))
(define (ctak-aux k x y z)
  (if (not (< y x))
      (k z)
      (call-with-current-continuation
       (lambda (k)
         (ctak-aux k
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- x 1) y z)))
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- y 1) z x)))
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- z 1) x y))))))))
(display (ctak 22 12 6))
(newline)

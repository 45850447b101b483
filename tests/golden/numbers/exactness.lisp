; exact and inexact: exact of a float is the rational equal to it; inexact
; rounds correctly to the nearest double, also for huge bignums and rationals
(define (p x) (write x) (newline))
(p (exact 0.1))
(p (exact 2.5))
(p (exact -0.75))
(p (exact 1e20))
(p (exact 4.0))
(p (exact -0.0))
(p (exact 1e-5))
(p (inexact->exact 0.5))
(p (exact 5/2))
(p (exact (expt 2 70)))
(p (inexact 1/3))
(p (inexact 2/3))
(p (exact->inexact -1/7))
(p (inexact (expt 2 70)))
(p (inexact (+ (expt 2 53) 1)))   ; a tie: to even, 2^53
(p (inexact (+ (expt 2 53) 3)))   ; a tie: to even, 2^53 + 4
(p (inexact (expt 10 308)))
(p (inexact (expt 10 309)))
(p (inexact (- (expt 10 309))))
(p (inexact (/ (expt 10 400) (+ (expt 10 399) 1))))
(p (inexact (/ 1 (expt 10 400))))
(p (inexact (/ 1 (expt 2 1074))))
(p (inexact (/ 1 (expt 2 1075))))   ; a tie: to even, 0.0
(p (inexact (/ 3 (expt 2 1075))))   ; a tie: to even, 2 ulps
(p (inexact (/ (+ (expt 3 200) 1) (expt 3 199))))
; round trip: every float's exact value converts back to itself
(define (round-trips? x) (eqv? x (inexact (exact x))))
(p (map round-trips? (list 0.1 1e-320 1.7976931348623157e308 -2.2250738585072014e-308 123.456)))
; #e and #i in literals
(p #e1.5)
(p #e-0.125)
(p #e1e3)
(p #e1.2e-3)
(p #i1/4)
(p #i1/3)
(p #i5)
; exactness of results
(p (* 1/2 4))
(p (+ 1/2 1/2))
(p (* 1.0 0))
(p (exact (floor 2.5)))
(p (exact (round 1e20)))

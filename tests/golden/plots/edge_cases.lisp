;; plot's edge cases: one point, a constant series (one y label, on the middle row),
;; NaN and infinite points (skipped: the line joins the finite points either side),
;; series of different lengths (the x axis runs to the longest), values near the
;; ends of the doubles, and ten series.
(plot '(5))
(plot '(2 2 2 2) "flat")
(plot (list 1 +nan.0 3 +inf.0 2 -inf.0 5) "gaps")
(plot (list +nan.0 4 +nan.0))
(plot '(0 1 4 9 16 25 36 49 64 81) '(0 1 2) '(3))
(plot (list -1e308 1e308))
(plot '(1.0 1.0000001 1.0000002))
(plot '(0 1) '(1 2) '(2 3) '(3 4) '(4 5) '(5 6) '(6 7) '(7 8) '(8 9) '(9 10))

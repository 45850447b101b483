;; A library found on the load path as shapes/geometry.sld. It imports
;; (shapes util) from the same tree, exports one name under another name,
;; and keeps `helper` and `dist2` private.
(define-library (shapes geometry)
  (export make-point point-x point-y distance-squared (rename scale-point scale) origin)
  (import (scheme base) (shapes util))
  (begin
    (define-record-type point (make-point x y) point? (x point-x) (y point-y))
    ;; defined below its first use: the library's own names are known up front
    (define (distance-squared a b) (dist2 (- (point-x a) (point-x b)) (- (point-y a) (point-y b))))
    (define (dist2 dx dy) (+ (square dx) (square dy)))
    (define (scale-point p k) (make-point (* k (point-x p)) (* k (point-y p))))
    (define origin (make-point 0 0))
    (define helper 'geometry-helper)))

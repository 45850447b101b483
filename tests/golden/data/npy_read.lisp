; load-npy: files NumPy wrote (tests/data/make_data_files.py), every dtype and order Kiln reads.
(define (npy name) (load-npy (string-append "../../data/npy/" name ".npy")))
(define (show name)
  (let ((t (npy name)))
    (display name) (display ": ") (write (tensor-shape t)) (display " ") (write (tensor->list t)) (newline)))
(define base (npy "f8_c"))
(show "f8_c")
; every dtype, in C order, Fortran order and big-endian, gives the same tensor
(for-each
 (lambda (code)
   (for-each
    (lambda (form)
      (let ((name (string-append code form)))
        (if (or (not (equal? form "_big")) (not (member code '("i1" "u1"))))
            (begin (display name) (display " ")
                   (write (equal? base (npy name))) (newline)))))
    '("_c" "_f" "_big")))
 '("f8" "f4" "i8" "i4" "i2" "i1" "u8" "u4" "u2" "u1"))
(show "b1_c")
(write (equal? (npy "b1_c") (npy "b1_f"))) (newline)
; values that test the conversions
(show "f8_special")
(write (eqv? -0.0 (tensor-ref (npy "f8_special") 0))) (newline)
(show "f4_fraction")
(show "i8_extremes")
; ranks 0, 1 and 3; a rank-3 Fortran-order file is transposed into Kiln's row-major order
(show "scalar")
(show "rank1")
(show "rank3_c")
(write (equal? (npy "rank3_c") (npy "rank3_f"))) (newline)
(show "rank3_f_i4")
; format versions 2.0 and 3.0 (a 4-byte header length)
(write (equal? base (npy "v2"))) (newline)
(write (equal? base (npy "v3"))) (newline)

;; Includes itself: the declarations nest without end.
(include-library-declarations "parts/self_include.scm")

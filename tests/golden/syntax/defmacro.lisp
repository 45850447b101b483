;; defmacro and define-macro: Lisp-style macros with gensym and dotted rest parameters.
(defmacro my-unless (c . body) `(if ,c #f (begin ,@body)))
(write (my-unless #f 1 2)) (newline)
(write (my-unless #t 1 2)) (newline)
;; gensym keeps the macro's temporary from capturing the user's variable.
(defmacro swap! (a b)
  (let ((t (gensym)))
    `(let ((,t ,a)) (set! ,a ,b) (set! ,b ,t))))
(define x 1)
(define y 2)
(swap! x y)
(write (list x y)) (newline)
(let ((g 'first) (h 'second))
  (swap! g h)
  (write (list g h)) (newline))
(write (symbol? (gensym))) (newline)
(write (eq? (gensym) (gensym))) (newline)
(write (symbol? (gensym "prefix"))) (newline)
;; define-macro with (name . params).
(define-macro (inc! v . by) `(set! ,v (+ ,v ,(if (null? by) 1 (car by)))))
(define z 5)
(inc! z)
(inc! z 10)
(write z) (newline)
;; The macro body is ordinary code run at expansion time.
(defmacro const-sum nums (apply + nums))
(write (const-sum 1 2 3 4)) (newline)
(defmacro my-cond clauses
  (if (null? clauses)
      #f
      `(if ,(car (car clauses))
           (begin ,@(cdr (car clauses)))
           (my-cond ,@(cdr clauses)))))
(write (my-cond (#f 1) ((= 1 1) 2) (#t 3))) (newline)
;; Macros print as #<macro NAME>, and macroexpand shows one expansion.
(write my-unless) (newline)
(write (macroexpand '(my-unless a b))) (newline)
;; Macros defined inside a body are local to it.
(define (local-macro)
  (defmacro twice (e) `(begin ,e ,e))
  (twice (display "y"))
  (newline))
(local-macro)
;; Wrong number of operands for a fixed parameter list is an error.
(guard (e (#t (display (error-object-message e)) (newline)))
  (eval '(swap! x)))

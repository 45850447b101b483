;;; prelude.lisp — derived syntax written in Kiln itself.
;;; Embedded into the kiln binary at build time (stdlib/embed.cmake).
;;; Expansions call internal builtins (%parameterize, %make-lazy, %case-lambda)
;;; whose names start with % so user code does not shadow them by accident.

(defmacro do (specs test-clause . body)
  (let ((loop (gensym "do-loop")))
    `(let ,loop ,(map (lambda (s) (list (car s) (cadr s))) specs)
       (if ,(car test-clause)
           (begin #f ,@(cdr test-clause))
           (begin ,@body
                  (,loop ,@(map (lambda (s) (if (null? (cddr s)) (car s) (caddr s))) specs)))))))

(defmacro delay (expr) `(%make-lazy (lambda () ,expr)))
(defmacro delay-force (expr) `(%make-lazy (lambda () ,expr)))
(defmacro make-lazy-promise (expr) `(%make-lazy (lambda () ,expr)))
(defmacro cons-stream (a b) `(cons ,a (delay ,b)))

(defmacro case-lambda clauses
  `(%case-lambda ,@(map (lambda (c) `(lambda ,(car c) ,@(cdr c))) clauses)))

(defmacro parameterize (bindings . body)
  `(%parameterize (list ,@(map car bindings))
                  (list ,@(map cadr bindings))
                  (lambda () ,@body)))

(defmacro receive (formals expr . body)
  `(call-with-values (lambda () ,expr) (lambda ,formals ,@body)))

(defmacro let-values (bindings . body)
  (if (null? bindings)
      `(let () ,@body)
      `(call-with-values (lambda () ,(cadr (car bindings)))
         (lambda ,(car (car bindings))
           (let-values ,(cdr bindings) ,@body)))))

(defmacro let*-values (bindings . body) `(let-values ,bindings ,@body))

(defmacro define-values (formals expr)
  (let loop ((f formals) (names '()))
    (cond ((pair? f) (loop (cdr f) (cons (car f) names)))
          ((symbol? f) (loop '() (cons f names)))
          (else
           (let ((temps (map (lambda (n) (gensym "value")) names)))
             `(begin
                ,@(map (lambda (n) `(define ,n #f)) names)
                (call-with-values (lambda () ,expr)
                  (lambda ,(let build ((f formals) (t (reverse temps)))
                             (cond ((pair? f) (cons (car t) (build (cdr f) (cdr t))))
                                   ((symbol? f) (car t))
                                   (else '())))
                    ,@(map (lambda (n t) `(set! ,n ,t)) (reverse names) temps)))))))))

(defmacro assert (expr . rest)
  `(if ,expr
       (void)
       (error ,(string-append "assertion failed: " (%write-to-string expr)))))

(defmacro time (expr)
  (let ((start (gensym "start")) (result (gensym "result")))
    `(let* ((,start (now-micros)) (,result ,expr))
       (%report-time (- (now-micros) ,start))
       ,result)))

(defmacro try-catch (body handler-spec . handler)
  `(guard (,(car handler-spec) (#t ,@handler)) ,body))

(defmacro cond-expand clauses
  (let loop ((cs clauses))
    (cond ((null? cs) '(void))
          ((%feature-match? (car (car cs))) `(begin ,@(cdr (car cs))))
          (else (loop (cdr cs))))))

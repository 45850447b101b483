;;; prelude.lisp — derived syntax written in Kiln itself.
;;; Embedded into the kiln binary at build time (stdlib/embed.cmake).
;;; Expansions call internal builtins (%parameterize, %make-lazy, %case-lambda)
;;; whose names start with % so user code does not shadow them by accident.

(defmacro do (specs test-clause . body)
  (let ((loop (gensym "do-loop")))
    `(let ,loop ,(map (lambda (s) (list (car s) (cadr s))) specs)
       (if ,(car test-clause)
           (begin ,@(cdr test-clause))
           (begin ,@body
                  (,loop ,@(map (lambda (s) (if (null? (cddr s)) (car s) (caddr s))) specs)))))))

(defmacro delay (expr) `(%make-lazy (lambda () (%make-value-promise ,expr))))
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

(defmacro let*-values (bindings . body)
  (if (null? bindings)
      `(let () ,@body)
      `(call-with-values (lambda () ,(cadr (car bindings)))
         (lambda ,(car (car bindings))
           (let*-values ,(cdr bindings) ,@body)))))

;; let-values evaluates every init outside the new bindings: bind the values to
;; fresh names first, then bind the real names in one let.
(defmacro let-values (bindings . body)
  (define (rename formals)
    (cond ((pair? formals) (cons (gensym "lv") (rename (cdr formals))))
          ((null? formals) '())
          (else (gensym "lv"))))
  (define (flatten formals)
    (cond ((pair? formals) (cons (car formals) (flatten (cdr formals))))
          ((null? formals) '())
          (else (list formals))))
  (let* ((temps (map (lambda (b) (rename (car b))) bindings))
         (pairs (apply append (map (lambda (b t) (map list (flatten (car b)) (flatten t)))
                                   bindings temps))))
    (let build ((bs bindings) (ts temps))
      (if (null? bs)
          `(let ,pairs ,@body)
          `(call-with-values (lambda () ,(cadr (car bs)))
             (lambda ,(car ts) ,(build (cdr bs) (cdr ts))))))))

(defmacro define-values (formals expr)
  (let loop ((f formals) (names '()))
    (cond ((pair? f) (loop (cdr f) (cons (car f) names)))
          ((symbol? f) (loop '() (cons f names)))
          (else
           (let ((temps (map (lambda (n) (gensym "value")) names)))
             `(begin
                ,@(map (lambda (n) `(define ,n #f)) names)
                (call-with-values (lambda () ,expr)
                  ;; named, so a count mismatch says "define-values: expected 2 arguments, got 1"
                  (named-lambda (define-values . ,(let build ((f formals) (t (reverse temps)))
                                                    (cond ((pair? f) (cons (car t) (build (cdr f) (cdr t))))
                                                          ((symbol? f) (car t))
                                                          (else '()))))
                    ,@(map (lambda (n t) `(set! ,n ,t)) names temps)
                    ;; so that () formals still give the lambda a body
                    (void)))))))))

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

;; Guile's module form, so a Guile script's (use-modules (ice-9 rdelim)) line
;; runs: like import, it is accepted and ignored, since every builtin is visible.
(defmacro use-modules specs '(void))

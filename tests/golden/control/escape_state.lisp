;; Escapes and re-entries that jump over the frames of builtins which change
;; dynamic state (handlers, parameters, eval's environment) and over bignum
;; arithmetic: afterwards that state is what it was at the capture, however
;; many times it is done.
(import (scheme base) (scheme write) (scheme eval))

(define (show . xs) (for-each display xs) (newline))
(define p (make-parameter 1))
(define big (expt 10 40))

(define (escape-many n body)
  (let loop ((i 0) (last #f))
    (if (= i n)
        last
        (loop (+ i 1) (call/cc (lambda (k) (body k i)))))))

;; Out of a with-exception-handler handler, a parameterize and a bignum
;; computation whose callback escapes.
(show (escape-many 2000
        (lambda (k i)
          (with-exception-handler
            (lambda (e) (k (list 'handled e)))
            (lambda ()
              (parameterize ((p (+ i 2)))
                (k (+ (* big big) (p)))))))))
(show "p = " (p))
(show (escape-many 2000
        (lambda (k i)
          (with-exception-handler
            (lambda (e) (k (list 'handled e (p))))
            (lambda () (parameterize ((p 'inner)) (raise-continuable i)))))))
(show "p = " (p))
(show (escape-many 2000
        (lambda (k i)
          (with-exception-handler
            (lambda (e) (k (error-object-message e)))
            (lambda () (parameterize ((p 'inner)) (vector-ref (vector) i)))))))

;; The handler stack is the top level's again: an error raised now reaches
;; this guard, not a handler installed in a loop above.
(show (guard (e (#t (list 'guard-saw e (p)))) (raise 'after)))
(show (with-exception-handler
        (lambda (e) (list 'outer e))
        (lambda () (raise-continuable 'continuable))))

;; eval with an environment: escaping out of its form leaves the program's
;; environment current, so a later definition lands there.
(define r (call/cc (lambda (k) (eval (list k ''out-of-eval) (environment '(only (scheme base) +))))))
(show r)
(define z 5)
(show "z = " (eval 'z (interaction-environment)))

;; Re-entering a continuation captured inside an evaluated form finishes
;; that form in its environment, then the program's is current again.
(define again #f)
(show "eval: "
      (eval (list '+ 1 (list call/cc (lambda (k) (set! again k) 1)))
            (environment '(only (scheme base) +))))
(if again (let ((k again)) (set! again #f) (k 10)))
(define w 6)
(show "w = " (eval 'w (interaction-environment)))

#!/usr/bin/env python3
"""vmap against map over the slices, bit for bit, over the differential fuzzer's programs.

usage: vmap_fuzz.py --kiln KILN [--seed S] [--count N]

Each program F of diff_fuzz.py (its generator: every traceable op, broadcasting
pairs, selects, reductions, matmuls with batch axes, convolutions, indexing, and
fori-loop, scan and while-loop, whose data-dependent trip count makes a mapped
while-loop run masked) gets a
batch of 1-3 examples per mapped parameter (each example one of the fuzzer's input
sets A and B; number parameters and about a third of the tensors are not mapped:
IN-AXES #f), an OUT-AXES of 0 or -1, and these checks, all bit for bit (eqv? on every
element, so -0.0 differs from 0.0):

  * (vmap F IN-AXES OUT-AXES) == graph-eval F on each example's slices, stacked;
  * the same == eager F on the slices, for programs without a traced `if` (whose
    eager call takes one branch where the trace selects between both) and where the
    eager call raises no error graph-eval does not and returns no complex number (a
    traced number is a real double: sqrt of a negative is NaN traced, complex eagerly,
    docs/graph.md); diff_fuzz.py
    checks eager == graph-eval everywhere else;
  * for a few programs per run, (jit (vmap F ...)) == (vmap F ...);
  * an error on the slices is an error of vmap too (any text), and vmap raises
    nothing where the slices do not.

Exits 1 and prints the failing programs' source when any check fails."""
import argparse
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import diff_fuzz as df  # noqa: E402

PRELUDE = r"""
(define (flat v)
  (cond ((and (number? v) (real? v)) (list (inexact v)))
        ((number? v) (list 'complex))  ; eagerly only: a traced number is a real double
        (else (tensor->list (reshape v (list (tensor-size v)))))))
(define (complex-in? rows) (and (pair? rows) (or (memq 'complex (car rows)) (complex-in? (cdr rows)))))
(define (leaves t)
  (cond ((or (number? t) (tensor? t)) (list t))
        ((vector? t) (leaves (vector->list t)))
        ((pair? t) (append (leaves (car t)) (leaves (cdr t))))
        (else '())))
(define (same-bits? a b)
  (cond ((and (null? a) (null? b)) #t)
        ((or (null? a) (null? b)) #f)
        (else (and (eqv? (car a) (car b)) (same-bits? (cdr a) (cdr b))))))
(define (without l k) (if (= k 0) (cdr l) (cons (car l) (without (cdr l) (- k 1)))))
(define (slice-of x a i) (reshape (tensor-slice x a i (+ i 1)) (without (tensor-shape x) a)))
(define (slices args axes i) (map (lambda (x a) (if a (slice-of x a i) x)) args axes))
(define (stacked r out i)
  (apply append (map (lambda (l) (flat (slice-of l (modulo out (length (tensor-shape l))) i))) (leaves r))))
(define (per-example g args axes n)
  (let loop ((i 0) (acc '()))
    (if (= i n) (reverse acc) (loop (+ i 1) (cons (apply append (map flat (leaves (g (slices args axes i))))) acc)))))
(define (agree? r out rows)
  (let loop ((i 0) (rows rows))
    (or (null? rows) (and (same-bits? (stacked r out i) (car rows)) (loop (+ i 1) (cdr rows))))))
(define-syntax attempt
  (syntax-rules () ((_ e) (guard (x (#t (list 'err (condition/report-string x)))) (list 'ok e)))))
;; prints ID and one verdict per check: ok, skip (slices failed, so did vmap), or what failed
(define (check id f args axes out n eager? jit?)
  (let* ((v (attempt (apply (vmap f axes out) args)))
         (g (attempt (per-example (lambda (s) (apply graph-eval f s)) args axes n)))
         (e (if eager? (attempt (per-example (lambda (s) (apply f s)) args axes n)) g))
         (verdict (lambda (ref)
                    (cond ((eq? (car ref) 'err) (if (eq? (car v) 'err) 'skip (list 'no-error (cadr ref))))
                          ((eq? (car v) 'err) (list 'vmap-error (cadr v)))
                          ((agree? (cadr v) out (cadr ref)) 'ok)
                          (else 'differs)))))
    (write (list id (verdict g)
                 (if (or (and (eq? (car e) 'err) (eq? (car g) 'ok)) (and (eq? (car e) 'ok) (complex-in? (cadr e))))
                     'skip
                     (verdict e))
                 (if (and jit? (eq? (car v) 'ok))
                     (let ((j (attempt (apply (jit (vmap f axes out)) args))))
                       (cond ((eq? (car j) 'err) (list 'jit-error (cadr j)))
                             ((same-bits? (apply append (map flat (leaves (cadr j))))
                                          (apply append (map flat (leaves (cadr v))))) 'ok)
                             (else 'jit-differs)))
                     'ok)))
    (newline)))
(define-syntax check-all (syntax-rules () ((_ id f args axes out n e j) (check id f (list . args) 'axes out n e j))))
"""


def batched(p, n):
    """A tensor of n examples of parameter p along a new axis 0 (examples A, B, A, ...)."""
    flat = []
    for i in range(n):
        flat += p.a if i % 2 == 0 else p.b
    return df.tensor_literal(flat, (n,) + tuple(p.shape))


def program(prog, rng, jit):
    i = prog.ident
    ps = " ".join(f"p{k}" for k in range(len(prog.params)))
    n = rng.choice([1, 2, 3])
    axes, args = [], []
    for p in prog.params:
        if p.shape is None or rng.random() < 0.3:
            axes.append("#f")
            args.append(p.lisp("a"))
        else:
            axes.append("0")
            args.append(batched(p, n))
    if all(a == "#f" for a in axes):
        return None
    out = rng.choice([0, -1])
    eager = "#f" if df.has_if(prog) else "#t"
    return (f"(define (f{i} {ps}) {df.to_lisp(prog.body)})\n"
            f"(check {i} f{i} (list {' '.join(args)}) '({' '.join(axes)}) {out} {n} {eager} {jit})\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--jit", type=int, default=3, help="programs also checked under jit")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sources, text = {}, [PRELUDE]
    jits = loops = 0
    for ident in range(args.count):
        prog = df.generate(rng, ident)
        if prog.big():
            continue
        jit = "#t" if jits < args.jit and rng.random() < 0.2 else "#f"
        src = program(prog, rng, jit)
        if src is None:
            continue
        jits += jit == "#t"
        loops += any(n.kind == "loop" for n in prog.body.walk())
        sources[ident] = src
        text.append(src)
    r = subprocess.run([args.kiln, "-"], input="".join(text), capture_output=True, text=True, timeout=1200)
    seen, fails, counts = set(), [], {"ok": 0, "skip": 0}
    for line in r.stdout.splitlines():
        try:
            v = df.parse_sexp(line)
        except Exception:
            continue
        if not isinstance(v, list) or len(v) != 4:
            continue
        ident = int(v[0])
        seen.add(ident)
        verdicts = v[1:]
        if all(x in ("ok", "skip") for x in verdicts):
            counts["ok" if verdicts[0] == "ok" else "skip"] += 1
        else:
            fails.append((ident, verdicts))
    for ident in sources:
        if ident not in seen:
            fails.append((ident, "no verdict (kiln stopped?)"))
    for ident, why in fails:
        print(f"FAIL program {ident}: {why}\n{sources[ident]}")
    if r.returncode != 0 and not fails:
        print(r.stderr[-2000:])
        fails.append((-1, "kiln exited with status %d" % r.returncode))
    print(f"vmap_fuzz: seed {args.seed}, {len(sources)} programs ({loops} with loops): {counts['ok']} agree, "
          f"{counts['skip']} fail on the slices and under vmap alike, {len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Ctrl-C during a kernel compile ends Kiln with status 130 (a compile cannot be
# stopped) and leaves nothing in $TMPDIR: libgccjit's libgccjit-XXXXXX working
# directory lives in a directory of Kiln's own, which the interrupt removes
# (compiler/jit_context.cpp). The SIGINT is sent once that working directory
# exists, so it lands inside the compile; if the compile ends first, the loop
# after it is interrupted instead, and the verdict is the same.
#
# usage: jit_interrupt_tmpdir.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
cat >"$work/c.lisp" <<'L'
(define widths (map (lambda (i) (+ 8 i)) (iota 60)))
(define (mk-ws ws) (if (null? (cdr ws)) '() (cons (reshape (tensor-div (arange (* (car ws) (cadr ws))) 1e6) (list (car ws) (cadr ws))) (mk-ws (cdr ws)))))
(define Ws (mk-ws widths))
(define (loss x ws) (let loop ((h x) (ws ws)) (if (null? ws) (tensor-sum (tensor-mul h h)) (loop (tensor-tanh (matmul h (car ws))) (cdr ws)))))
(define x (reshape (tensor-div (arange 32) 32.0) '(4 8)))
(define k (graph-compile-grad loss x Ws))
(let forever () (forever))
L
failures=0
TMPDIR=$work/tmp KILN_CACHE_DIR=off "$KILN" "$work/c.lisp" >/dev/null 2>"$work/err" &
pid=$!
waited=0
# Up to 10 minutes for tracing to reach the compile on a busy machine.
while kill -0 "$pid" 2>/dev/null && [ -z "$(find "$work/tmp" -name 'libgccjit-*' 2>/dev/null)" ] && [ $waited -lt 6000 ]; do
  sleep 0.1
  waited=$((waited + 1))
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
status=$?
if [ $status -ne 130 ]; then
  echo "FAIL: status $status, stderr: $(head -c 300 "$work/err")"
  failures=$((failures + 1))
fi
left=$(find "$work/tmp" -mindepth 1)
if [ -n "$left" ]; then
  echo "FAIL: left in TMPDIR: $left"
  failures=$((failures + 1))
fi
# A compile that ends normally leaves nothing either, and TMPDIR is the user's again after it.
out=$(TMPDIR=$work/tmp KILN_CACHE_DIR=off "$KILN" -e '(define k (graph-compile (lambda (x) (tensor-exp x)) 1.0)) (display (list (k 0.0) (get-environment-variable "TMPDIR")))' 2>&1)
if [ "$out" != "(1.0 $work/tmp)" ]; then
  echo "FAIL: a normal compile printed: $out"
  failures=$((failures + 1))
fi
left=$(find "$work/tmp" -mindepth 1)
if [ -n "$left" ]; then
  echo "FAIL: a normal compile left in TMPDIR: $left"
  failures=$((failures + 1))
fi
if [ $failures -ne 0 ]; then
  echo "$failures failed"
  exit 1
fi
echo "PASS: interrupted compile (status 130, $(grep -c 'interrupted while compiling' "$work/err") compile message) left TMPDIR empty"

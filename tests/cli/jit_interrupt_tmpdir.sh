#!/usr/bin/env bash
# Ctrl-C during a kernel compile ends Kiln with status 130 (a compile cannot be
# stopped) and leaves nothing in $TMPDIR: libgccjit's libgccjit-XXXXXX working
# directory lives in a directory of Kiln's own, which the interrupt removes
# (compiler/jit_context.cpp). The SIGINT is sent once that working directory
# exists, so it lands inside the compile; if the compile ends first, the loop
# after it is interrupted instead, and the verdict is the same. Then the same for a
# background (tiered) compile.
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
# The same for a background (tiered) compile, SPEC §17, which may be the process's
# first: Ctrl-C while the interpreter loops and the compile runs, and a program that
# ends while its kernel compiles, leave nothing; TMPDIR is the user's again once a
# background compile has run (the next jit call restores it).
sed -e 's/(define k (graph-compile-grad loss x Ws))/(define J (jit loss)) (display (J x Ws)) (newline)/' \
  "$work/c.lisp" >"$work/bg.lisp"
TMPDIR=$work/tmp KILN_CACHE_DIR=off "$KILN" "$work/bg.lisp" >/dev/null 2>"$work/err" &
pid=$!
waited=0
while kill -0 "$pid" 2>/dev/null && [ -z "$(find "$work/tmp" -name 'libgccjit-*' 2>/dev/null)" ] && [ $waited -lt 6000 ]; do
  sleep 0.1
  waited=$((waited + 1))
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
status=$?
if [ $status -ne 130 ]; then
  echo "FAIL: background compile: status $status, stderr: $(head -c 300 "$work/err")"
  failures=$((failures + 1))
fi
left=$(find "$work/tmp" -mindepth 1)
if [ -n "$left" ]; then
  echo "FAIL: Ctrl-C during a background compile left in TMPDIR: $left"
  failures=$((failures + 1))
fi
grep -v 'forever' "$work/bg.lisp" >"$work/bg_end.lisp"
TMPDIR=$work/tmp KILN_CACHE_DIR=off "$KILN" "$work/bg_end.lisp" >/dev/null 2>"$work/err"
status=$?
left=$(find "$work/tmp" -mindepth 1)
if [ $status -ne 0 ] || [ -n "$left" ]; then
  echo "FAIL: a program ending during a background compile: status $status, left in TMPDIR: $left"
  failures=$((failures + 1))
fi
out=$(TMPDIR=$work/tmp KILN_CACHE_DIR=off "$KILN" -e '(define J (jit (lambda (x) (tensor-exp x)))) (J 1.0) (jit-wait J) (display (list (J 0.0) ((jit (lambda (y) (* y 2.0))) 1.0) (get-environment-variable "TMPDIR")))' 2>&1)
if [ "$out" != "(1.0 2.0 $work/tmp)" ]; then
  echo "FAIL: after a background compile: $out"
  failures=$((failures + 1))
fi
left=$(find "$work/tmp" -mindepth 1)
if [ -n "$left" ]; then
  echo "FAIL: a finished background compile left in TMPDIR: $left"
  failures=$((failures + 1))
fi
if [ $failures -ne 0 ]; then
  echo "$failures failed"
  exit 1
fi
echo "PASS: interrupted and abandoned compiles (foreground and background) left TMPDIR empty"

#!/usr/bin/env bash
# Ctrl-C during a kernel compile ends Kiln with status 130 (a compile cannot be
# stopped) and leaves nothing in $TMPDIR: libgccjit's libgccjit-XXXXXX working
# directory lives in a directory of Kiln's own, which the interrupt has removed
# once the process has ended (by a process that waits for that end, so GCC never
# sees it go: compiler/jit_context.cpp); the check allows that removal 30 s. The SIGINT is sent once that working directory
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
# left_after_exit DIR: what is still in DIR once the removal an ended process left
# behind it has had 30 s (empty at once, in the usual case).
left_after_exit() {
  local tries=0
  while [ -n "$(find "$1" -mindepth 1 2>/dev/null)" ] && [ $tries -lt 300 ]; do
    sleep 0.1
    tries=$((tries + 1))
  done
  find "$1" -mindepth 1
}
# interrupt_compile WHAT FILE: runs FILE, sends SIGINT once a libgccjit working
# directory exists (up to 10 minutes for tracing to reach the compile on a busy
# machine), and expects status 130 and nothing left in TMPDIR.
interrupt_compile() {
  TMPDIR=$work/tmp KILN_CACHE_DIR=off "$KILN" "$2" >/dev/null 2>"$work/err" &
  local pid=$! waited=0 status left
  while kill -0 "$pid" 2>/dev/null && [ -z "$(find "$work/tmp" -name 'libgccjit-*' 2>/dev/null)" ] && [ $waited -lt 6000 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  kill -INT "$pid" 2>/dev/null
  wait "$pid"
  status=$?
  if [ $status -ne 130 ]; then
    echo "FAIL: $1: status $status, stderr: $(head -c 300 "$work/err")"
    failures=$((failures + 1))
  fi
  left=$(left_after_exit "$work/tmp")
  if [ -n "$left" ]; then
    echo "FAIL: $1: left in TMPDIR: $left"
    failures=$((failures + 1))
  fi
}
interrupt_compile "an interrupted compile" "$work/c.lisp"
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
# The same with a background compile (tiered `jit`): the interpreter runs the loop,
# Ctrl-C ends the script while the compile goes on, and nothing is left either.
sed -e 's/^(define k (graph-compile-grad loss x Ws))$/(define step (jit loss))/' \
    -e 's/^(let forever () (forever))$/(let forever () (step x Ws) (forever))/' "$work/c.lisp" >"$work/b.lisp"
interrupt_compile "an interrupted background compile" "$work/b.lisp"
# The program sees the TMPDIR it was given, in both of the environment's views.
out=$(TMPDIR=$work/tmp "$KILN" -e '(display (list (get-environment-variable "TMPDIR") (cdr (assoc "TMPDIR" (get-environment-variables)))))' 2>&1)
if [ "$out" != "($work/tmp $work/tmp)" ]; then
  echo "FAIL: the program's TMPDIR: $out"
  failures=$((failures + 1))
fi
out=$(env -u TMPDIR "$KILN" -e '(display (list (get-environment-variable "TMPDIR") (assoc "TMPDIR" (get-environment-variables))))' 2>&1)
if [ "$out" != "(#f #f)" ]; then
  echo "FAIL: the program's unset TMPDIR: $out"
  failures=$((failures + 1))
fi
# The directory is made at the first compile: if it cannot be made then (here its
# parent is gone), the kernel runs in the interpreter with a warning naming it.
mkdir "$work/gone"
(while ! grep ready "$work/gone.out" >/dev/null 2>&1; do sleep 0.05; done; rmdir "$work/gone"; echo go) |
  TMPDIR=$work/gone KILN_JIT=sync KILN_CACHE_DIR=off "$KILN" -e '(display "ready") (newline) (flush-output-port)
    (read-line) (define k (jit (lambda (x) (tensor-exp x)))) (display (k 0.0))' >"$work/gone.out" 2>"$work/err"
out=$(cat "$work/gone.out" "$work/err")
if ! grep -x "ready" >/dev/null <<<"$out" || ! grep "^1.0" >/dev/null <<<"$out" ||
   ! grep "cannot make the compile directory $work/gone/kiln-jit-.*: No such file or directory" >/dev/null <<<"$out"; then
  echo "FAIL: a compile directory that cannot be made: $out"
  failures=$((failures + 1))
fi
# Someone else (a temporary-file cleaner) removes the compile directory mid-compile:
# GCC aborts, and Kiln ends with a clear error naming the kernel (status 70), not a
# silent SIGABRT; a compile that ended before the removal is a normal run.
mkdir -p "$work/rm"
TMPDIR=$work/rm KILN_CACHE_DIR=off "$KILN" "$work/c.lisp" >/dev/null 2>"$work/err" &
pid=$!
for _ in $(seq 1 6000); do
  [ -n "$(find "$work/rm" -name 'libgccjit-*' 2>/dev/null)" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
rm -rf "$work/rm"/kiln-jit-*
sleep 0.5
kill -INT $pid 2>/dev/null  # a compile that ended first: its loop runs forever
wait $pid
status=$?
if ! { [ $status = 70 ] && grep "error: the compiler crashed while compiling kernel loss" "$work/err" >/dev/null; } &&
   ! { [ $status = 130 ] && ! grep -i "abort\|crash" "$work/err" >/dev/null; }; then
  echo "FAIL: a compile directory removed mid-compile: status $status, stderr: $(head -c 300 "$work/err")"
  failures=$((failures + 1))
fi
if [ $failures -ne 0 ]; then
  echo "$failures failed"
  exit 1
fi
echo "PASS: interrupted compiles, sync and background (status 130, $(grep -c 'interrupted while compiling' "$work/err") compile message) left TMPDIR empty"

#!/usr/bin/env bash
# Ctrl-C stops builtins whose loops run long (their trip count comes from a
# count or from the size of a structure, not from Lisp code the evaluator
# polls): each program gets SIGINT after 1 s and must end within 5 s more with
# "interrupted" and status 130, as a Lisp loop does. Memory is capped so that a
# builtin which ignores the signal fails the test instead of filling the machine.
#
# usage: interrupt_builtins.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")
# The 4 GB address-space cap keeps a runaway allocation from taking the machine;
# AddressSanitizer reserves terabytes of shadow memory up front, so no cap fits it
# (its runs are still stopped by the SIGINT after 1 s).
limit=4000000
if ldd "$KILN" 2>/dev/null | grep libasan >/dev/null; then limit=unlimited; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

check() {
  local name=$1 program=$2 limit=${3:-$limit}
  printf '%s\n' "$program" >"$tmp/$name.lisp"
  (
    ulimit -v "$limit"
    exec "$KILN" "$tmp/$name.lisp" >/dev/null 2>"$tmp/$name.err"
  ) &
  local pid=$!
  sleep 1
  kill -INT "$pid" 2>/dev/null
  local waited=0
  while kill -0 "$pid" 2>/dev/null && [ $waited -lt 50 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    echo "FAIL $name: still running 5 s after SIGINT"
    failures=$((failures + 1))
    return
  fi
  wait "$pid"
  local status=$?
  if [ $status -ne 130 ] || ! grep -qx interrupted "$tmp/$name.err"; then
    echo "FAIL $name: status $status, stderr: $(head -c 300 "$tmp/$name.err")"
    failures=$((failures + 1))
  else
    echo "PASS $name"
  fi
}

check iota '(display (length (iota 9223372036854775807)))'
check make_list '(display (length (make-list 2147483648)))'
check range '(display (length (range 4294967296)))'
check iota_float '(display (length (iota 9223372036854775807 0.5 0.25)))'
check make_vector_list '(display (vector-length (list->vector (make-list 2147483648 (quote x)))))'
check for_each_builtin '(for-each car (make-list 2147483648 (list 1)))'
# 2^60 leaves through shared structure: the printer, not the allocator, runs long.
check write_shared_dag '(define dag (let loop ((k 60) (x (list 1))) (if (= k 0) x (loop (- k 1) (list x x))))) (write dag)'
check display_shared_dag '(define dag (let loop ((k 60) (x (list 1))) (if (= k 0) x (loop (- k 1) (list x x))))) (display (list dag))'
# Tensor constructors write gigabytes whose pages fault in for seconds.
check ones_big '(display (tensor-shape (ones (list 20000 20000))))'
check randn_big '(display (tensor-shape (tensor-randn (list 20000 20000) 1)))'
check arange_big '(display (tensor-shape (arange 400000000)))'
# 3.2 GB of Lisp values: the collector would clear it in one call. With 16 GB
# of memory, 12 GB (whose clearing held Ctrl-C off for 30 s).
check make_vector_big '(display (vector-length (make-vector 400000000 0)))'
check vector_grow_big '(display (vector-length (vector-grow (vector 1) 400000000)))'
if [ "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)" -ge 16000000 ]; then
  big_limit=14000000
  [ "$limit" = unlimited ] && big_limit=unlimited
  check make_vector_12g '(display (vector-length (make-vector 1500000000 0)))' $big_limit
  check vector_grow_12g '(display (vector-length (vector-grow (vector 1) 1500000000)))' $big_limit
fi
# Base-10 digits of a 2^31-bit integer: GMP alone took 5 minutes and ignored
# SIGINT (crash_fuzz seed 4108); made 2^16 bits at a time on a worker thread.
check write_huge_integer '(write (- (expt 2 2147483647) (expt 2 100)))'
check number_string_huge '(display (string-length (number->string (* 3 (expt 2 2000000000)))))'
# Each guard's handler raises while the stack overflow unwinds, so no call or
# loop runs between one guard and the next: the guard polls as it catches.
check guard_unwind '(define (err thunk) (guard (e (#t (display undefined-thing))) (err (lambda () 1)) (thunk))) (err (lambda () 2))'

if [ $failures -ne 0 ]; then
  echo "$failures failed"
  exit 1
fi
echo "all interrupted"

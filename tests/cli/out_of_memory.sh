#!/usr/bin/env bash
# Running out of memory is Kiln's own error and nothing else: under a range of
# address-space limits (ulimit -v) a program that allocates without end must
# print "error: out of memory" (with its backtrace) and exit 1. No libgc
# warning ("GC Warning: Out of memory - trying to allocate ...", "Header
# allocation failed"), no C++ "terminate called ... std::bad_alloc", no signal.
# Where memory runs out (the heap, the collector's own headers, malloc) depends
# on the limit, so several limits are tried.
#
# usage: out_of_memory.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")

# AddressSanitizer reserves terabytes of shadow memory up front: no ulimit -v
# fits it, so this test means nothing there.
if ldd "$KILN" 2>/dev/null | grep libasan >/dev/null; then
  echo "out_of_memory.sh: skipped under AddressSanitizer"
  exit 0
fi

progs=(
  "(define v (let loop ((acc '())) (loop (cons (make-vector 100 0) acc))))"
  "(define h (make-hash-table)) (let loop ((i 0)) (hash-table-set! h i (make-string 50 #\\a)) (loop (+ i 1)))"
)
failures=0
runs=0
for prog in "${progs[@]}"; do
  for limit in $(seq 150000 9001 260000); do
    err=$( (ulimit -v "$limit"; exec timeout 120 "$KILN" -e "$prog") 2>&1 >/dev/null)
    status=$?
    runs=$((runs + 1))
    # Everything on stderr must be the error line and its "at" lines; the line
    # has no location when memory ran out before the program started or while
    # the error was being reported.
    other=$(printf '%s\n' "$err" | grep -v -e '^-e:[0-9:]*: error: out of memory' -e '^error: out of memory$' \
            -e '^  at ' -e '^$')
    # A here-string, not a pipe: under pipefail, grep -q quitting at its first match
    # can kill printf with SIGPIPE and fail a correct run.
    if [ "$status" -ne 1 ] || ! grep -q 'error: out of memory' <<<"$err" || [ -n "$other" ]; then
      echo "FAIL: ulimit -v $limit, $prog: status $status, stderr:"
      printf '%s\n' "$err" | head -5
      failures=$((failures + 1))
    fi
  done
done
if [ "$failures" -ne 0 ]; then
  echo "$failures of $runs runs failed"
  exit 1
fi
echo "out of memory: $runs runs, each the one error line"

#!/usr/bin/env bash
# tiering.sh KILN — tiered execution as real processes (SPEC §17, docs/jit.md
# "Tiered execution"): the first call is answered by the interpreter before the
# kernel is compiled and KILN_JIT_LOG=1 logs the switch; KILN_JIT=sync compiles
# first; a program ending while its kernel compiles ends at once with its own
# status; Ctrl-C during a background compile ends the script as an interrupt at
# once, leaving no partial cache file, at whatever moment of the compile it comes;
# a failed compile leaves the interpreter in
# place with one warning and the same results. What the program writes to stderr
# while the driver's messages are captured is kept.
set -u
kiln="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # check NAME CONDITION-STATUS
  if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1 (status $rc; output:)"; sed "s|^|    |" <<<"$out"; fails=$((fails + 1)); fi
}
now_ms() { date +%s%3N; }
run() {  # run ARGS -- ENV... -> stdout+stderr in $out, status in $rc, wall time in $ms
  local args="$1"; shift
  local t0; t0=$(now_ms)
  out="$(cd "$here" && env "$@" "$kiln" tiering_step.lisp $args 2>&1)"
  rc=$?
  ms=$(($(now_ms) - t0))
}
line_of() { grep -n -m1 -- "$1" <<<"$out" | cut -d: -f1; }
clean_cache() { [ -z "$(ls -A "$1" 2>/dev/null | grep -vx lock)" ]; }

# Where a check needs a compile still running, KILN_JIT_TEST_DELAY_MS holds every
# background compile back that long, so no verdict depends on how fast GCC is.

# 1. background (the default): the interpreter answers first, then the kernel takes over
run 3 KILN_CACHE_DIR=off KILN_JIT_LOG=1 KILN_JIT_TEST_DELAY_MS=2000
check "background: results equal graph-eval before and after the switch" $([ $rc = 0 ] && grep -qx '(first call equals graph-eval: #t)' <<<"$out" && grep -qx '(after the switch: #t #t)' <<<"$out" && ! grep -q MISMATCH <<<"$out" && echo 0 || echo 1)
check "background: stderr written during the compile is kept, in order" $([ "$(line_of 'note on stderr')" = $(($(line_of 'first call') + 1)) ] && echo 0 || echo 1)
first=$(line_of 'first call'); compiled=$(line_of 'compiled in memory'); switched=$(line_of 'switching from the graph interpreter to the kernel')
check "background: first result before the compile ends, then one logged switch" $([ -n "$first" ] && [ -n "$compiled" ] && [ -n "$switched" ] && [ "$first" -lt "$compiled" ] && [ "$compiled" -lt "$switched" ] && [ "$(grep -c switching <<<"$out")" = 1 ] && echo 0 || echo 1)

# 2. KILN_JIT=sync: the compile comes first and there is no switch
run 3 KILN_CACHE_DIR=off KILN_JIT_LOG=1 KILN_JIT=sync
sync_ms=$ms
first=$(line_of 'first call'); compiled=$(line_of 'compiled in memory')
check "sync: compiled before the first result, no switch" $([ $rc = 0 ] && [ -n "$compiled" ] && [ -n "$first" ] && [ "$compiled" -lt "$first" ] && ! grep -q switching <<<"$out" && grep -qx '(after the switch: #t #t)' <<<"$out" && echo 0 || echo 1)
run 0 KILN_CACHE_DIR=off KILN_JIT=fast
check "an unknown KILN_JIT is one warning" $([ $rc = 0 ] && [ "$(grep -c 'warning: KILN_JIT=fast is not one of sync or background; compiling in the background' <<<"$out")" = 1 ] && echo 0 || echo 1)

# 3. exit while the kernel compiles: at once, with the program's status
cache="$tmp/exit-cache"
run "0 3" KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1 KILN_JIT_TEST_DELAY_MS=8000
check "exit during a compile: status and output kept" $([ $rc = 3 ] && grep -qx exiting <<<"$out" && ! grep -q 'cache miss' <<<"$out" && echo 0 || echo 1)
check "exit during a compile: no wait for it (${ms} ms, the compile held 8000 ms)" $([ "$ms" -lt 8000 ] && echo 0 || echo 1)
sleep 1
check "exit during a compile: no partial cache file" $(clean_cache "$cache" && echo 0 || echo 1)

# 3b. exit at many moments of a compile: always the program's status, nothing left
# behind in TMPDIR (GCC's exit(1) on its removed directory once won the race)
sweep_tmp="$tmp/sweep-tmpdir"; mkdir -p "$sweep_tmp"; bad=""
for wait_ms in $(seq 0 4 120); do
  (cd "$here" && TMPDIR="$sweep_tmp" KILN_CACHE_DIR=off "$kiln" exit_mid_compile.lisp $wait_ms >/dev/null 2>"$tmp/sweep.err")
  rc=$?
  [ $rc = 3 ] && [ ! -s "$tmp/sweep.err" ] || bad="$bad wait=${wait_ms}ms:status=$rc:$(head -c 200 "$tmp/sweep.err")"
done
# the compile directory is removed by a process that waits for Kiln's end: allow it 30 s
for _ in $(seq 1 300); do [ -z "$(ls -A "$sweep_tmp")" ] && break; sleep 0.1; done
out="$bad; left in TMPDIR: $(ls -A "$sweep_tmp")"
check "exit at any moment of a compile: the program's status, no message, nothing left" $([ -z "$bad" ] && [ -z "$(ls -A "$sweep_tmp")" ] && echo 0 || echo 1)

# 4. Ctrl-C while the kernel compiles: the interpreter thread stops as usual
cache="$tmp/int-cache"
(cd "$here" && KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1 KILN_JIT_TEST_DELAY_MS=8000 exec "$kiln" tiering_step.lisp forever >"$tmp/int.out" 2>&1) & pid=$!
for _ in $(seq 1 500); do grep -q 'first call' "$tmp/int.out" 2>/dev/null && break; sleep 0.01; done
t0=$(now_ms); kill -INT $pid; wait $pid; rc=$?; int_ms=$(($(now_ms) - t0))
out="$(cat "$tmp/int.out")"
check "Ctrl-C during a background compile: interrupted, status 130" $([ $rc = 130 ] && grep -qx interrupted <<<"$out" && ! grep -q MISMATCH <<<"$out" && echo 0 || echo 1)
check "Ctrl-C during a background compile: the compile was still running, and is not waited for (${int_ms} ms)" $(! grep -q 'cache miss' <<<"$out" && [ "$int_ms" -lt 8000 ] && echo 0 || echo 1)
sleep 1
check "Ctrl-C during a background compile: no partial cache file" $(clean_cache "$cache" && echo 0 || echo 1)

# 5. a failed compile (no gcc driver): the interpreter stays, one warning
run 3 KILN_CACHE_DIR=off PATH=/nonexistent
check "failed background compile: one warning naming the cause" $([ $rc = 0 ] && [ "$(grep -c 'warning: kernel step: libgccjit could not compile it (error invoking gcc driver.*); using the graph interpreter' <<<"$out")" = 1 ] && [ "$(grep -c warning <<<"$out")" = 1 ] && echo 0 || echo 1)
check "failed background compile: same results, kernel not ready" $(grep -qx '(first call equals graph-eval: #t)' <<<"$out" && grep -qx '(after the switch: #t #f)' <<<"$out" && ! grep -q MISMATCH <<<"$out" && echo 0 || echo 1)

echo "$fails failed"
[ $fails = 0 ]

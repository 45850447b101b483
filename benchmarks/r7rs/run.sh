#!/bin/sh
# Runs the public R7RS benchmark suite (github.com/ecraven/r7rs-benchmarks) with Kiln,
# read from a checkout whose path is given (the suite is not copied here). Each program
# is assembled as the suite's own `bench` script does (program + common.scm +
# common-postlude.scm), reads its input file on stdin, and checks its own answer;
# the suite prints "+!CSVLINE!+kiln,NAME,SECONDS" on success.
# Usage: benchmarks/r7rs/run.sh SUITE_DIR [KILN] [PROGRAM ...]
#   COUNT=1      replaces each input's iteration count (a quick "does it run" pass)
#   TIMEOUT=120  seconds per program
set -u
SUITE=${1:?usage: run.sh SUITE_DIR [KILN] [PROGRAM ...]}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${2:-$ROOT/build/kiln}
case $KILN in /*) ;; *) KILN=$(pwd)/$KILN ;; esac
[ $# -ge 2 ] && shift 2 || shift $#
TIMEOUT=${TIMEOUT:-120}
# Every program of the suite by default.
PROGRAMS=${*:-$(cd "$SUITE/src" && ls *.scm | grep -v -e prelude -e postlude -e '^common' | sed 's/\.scm$//')}
# ray and slatex write their output under outputs/, as in the suite's runner.
mkdir -p "$SUITE/outputs"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
for p in $PROGRAMS; do
  src="$SUITE/src/$p.scm"
  [ -f "$src" ] || { echo "$p: not in the suite"; fail=$((fail + 1)); continue; }
  [ -f "$SUITE/inputs/$p.input" ] || { echo "$p: no input file"; fail=$((fail + 1)); continue; }
  # Kiln's postlude, in place of the suite's per-implementation ones: the name the
  # suite's report line prints.
  { cat "$src" "$SUITE/src/common.scm"
    echo '(define (this-scheme-implementation-name) "kiln")'
    cat "$SUITE/src/common-postlude.scm"; } > "$TMP/$p.scm"
  if [ -n "${COUNT:-}" ]; then
    sed "1s/^[0-9][0-9]*/$COUNT/" "$SUITE/inputs/$p.input" > "$TMP/$p.input"
  else
    cp "$SUITE/inputs/$p.input" "$TMP/$p.input"
  fi
  # Some programs (cat, wc, read1, tail, slatex) read or write files named relative to
  # the current directory, as in the suite's own runner.
  (cd "$SUITE" && timeout "$TIMEOUT" "$KILN" "$TMP/$p.scm" < "$TMP/$p.input") > "$TMP/$p.out" 2>&1
  rc=$?
  line=$(grep -a '^+!CSVLINE!+' "$TMP/$p.out" | tail -1)
  if [ $rc -eq 124 ]; then
    fail=$((fail + 1)); echo "$p: TIMEOUT after $TIMEOUT s"
  elif [ $rc -eq 0 ] && [ -n "$line" ] && [ "${line##*,}" != INCORRECT ]; then
    pass=$((pass + 1)); echo "$p: ok ${line##*,} s"
  else
    fail=$((fail + 1)); echo "$p: FAILED (exit $rc): $(grep -a -v '^Running' "$TMP/$p.out" | head -2 | tr '\n' ' ')"
  fi
done
echo "r7rs-benchmarks: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# KILN_GC_STRESS_SKIP_BOOT=1 (make gc-stress, docs/testing.md) leaves boot without
# stress and nothing else: the program's own allocations each still get a full
# collection. Counted with the collector's own log (GC_PRINT_STATS prints a line per
# collection), so the verdict depends on counts, not on time: a program making
# 2000 pairs must see at least 2000 collections with the boot skipped, and boot
# under plain KILN_GC_STRESS=1 must add at least as many again (it allocates far
# more than the program); both print the program's answer.
#
# usage: gc_stress_boot.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$1
# Under ASan a collection per allocation through boot takes many minutes: the
# Release build checks this switch, and `make gc-stress` uses the Release build.
if ldd "$KILN" 2>/dev/null | grep libasan >/dev/null; then
  echo "SKIP gc_stress_boot: an ASan build (make gc-stress runs the Release build)"
  exit 77
fi
PROGRAM='(define (build n acc) (if (= n 0) acc (build (- n 1) (cons n acc))))
(display (length (build 2000 (list))))'
fail() {
  echo "FAIL: $*"
  exit 1
}
collections() {  # ENV... : the number of collections of one run, its output checked
  local out err
  err=$(mktemp)
  out=$(env "$@" GC_PRINT_STATS=1 "$KILN" -e "$PROGRAM" 2>"$err") || fail "status $? with $*: $(tail -3 "$err")"
  [ "$out" = 2000 ] || fail "printed '$out' with $*, expected 2000"
  grep -c 'Initiating full world-stop collection' "$err"
  rm -f "$err"
}
plain=$(collections KILN_GC_STRESS_SKIP_BOOT=0) || exit 1
full=$(collections KILN_GC_STRESS=1) || exit 1
skip=$(collections KILN_GC_STRESS=1 KILN_GC_STRESS_SKIP_BOOT=1) || exit 1
echo "collections: no stress $plain, stress with boot skipped $skip, stress from the start $full"
[ "$skip" -ge 2000 ] || fail "with the boot skipped the program's 2000 allocations saw only $skip collections"
[ $((full - skip)) -ge 2000 ] || fail "boot under stress added only $((full - skip)) collections"
[ "$plain" -lt 100 ] || fail "KILN_GC_STRESS_SKIP_BOOT alone turned stress on ($plain collections)"
echo "PASS gc_stress_boot"

#!/usr/bin/env bash
# run.sh — issue 29's loop benchmark: Kiln's 1000-step jitted fori-loop beside a C
# step, one thread, KILN_JIT=sync, KILN_CACHE_DIR=off (compile times are real
# compiles), alternating the processes (3 rounds), then the C step's warm median.
#   benchmarks/loops/run.sh [KILN] [YARDSTICK.c]
# The C side is ../shared/yardsticks/train_step_limit.c (minimal variant: dW and db)
# where it builds and runs; it uses AVX-512 intrinsics, so on a CPU without AVX-512
# the project's own benchmarks/c_step (faithful: every gradient, more work) stands in.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kiln="${1:-$here/../../build/kiln}"
src="${2:-$here/../../../../shared/yardsticks/train_step_limit.c}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
limit=""
if [ -f "$src" ] && cc -O3 -march=native -ffp-contract=off "$src" -o "$tmp/limit" -lm 2>/dev/null &&
  "$tmp/limit" once small minimal V4x1 >/dev/null 2>&1; then
  limit="$tmp/limit"
fi
for round in 1 2 3; do
  KILN_THREADS=1 KILN_JIT=sync KILN_CACHE_DIR=off "$kiln" "$here/fori_sgd.lisp"
  if [ -n "$limit" ]; then
    for engine in V4x1 ikj; do echo "yardstick minimal $engine: $("$limit" once small minimal "$engine")"; done
  else
    "$here/../c_step/run.sh" | grep '^8x16'
  fi
done
# The yardstick warm too (median of 11 runs after a warm-up), as Kiln's figure is.
if [ -n "$limit" ]; then "$limit" 11 V4x1 | grep '^small  minimal'; fi

#!/usr/bin/env bash
# run.sh — issue 29's loop benchmark: Kiln's 1000-step jitted fori-loop beside the
# C yardstick (../shared/yardsticks/train_step_limit.c, minimal variant: dW and db),
# one thread, KILN_JIT=sync, alternating the processes.
#   benchmarks/loops/run.sh [KILN] [YARDSTICK.c]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kiln="${1:-$here/../../build/kiln}"
src="${2:-$here/../../../../shared/yardsticks/train_step_limit.c}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ -f "$src" ]; then
  cc -O3 -march=native -ffp-contract=off "$src" -o "$tmp/limit" -lm
fi
for round in 1 2 3; do
  KILN_THREADS=1 KILN_JIT=sync "$kiln" "$here/fori_sgd.lisp"
  if [ -x "$tmp/limit" ]; then
    for engine in V4x1 tileC ikj; do
      echo "yardstick $engine: $("$tmp/limit" once small minimal "$engine" 2>&1 | tail -1)"
    done
  fi
done

#!/bin/sh
# Compile time of graph-compile-grad and of a jitted whole step against MLP depth,
# with an empty kernel cache and one thread, shared units on and (for depths up
# to MAX_ONE_FUNCTION) off, so the two are measured side by side in one run.
# Usage: benchmarks/compile/run.sh [KILN] [LAYERS ...]   (default: build/kiln, 1 4 16 32 64)
set -e
# The jit timings are of compiled kernels: wait for each compile (SPEC §17).
export KILN_JIT=sync
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${1:-$ROOT/build/kiln}
[ $# -gt 0 ] && shift
LAYERS=${*:-1 4 16 32 64}
MAX_ONE_FUNCTION=${MAX_ONE_FUNCTION:-32}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%Y-%m-%d)"
echo "shared units (default):"
KILN_CACHE_DIR=off KILN_THREADS=1 "$KILN" "$ROOT/benchmarks/compile/compile_bench.lisp" $LAYERS
echo "one function (KILN_JIT_SHARE=0), up to $MAX_ONE_FUNCTION layers:"
for l in $LAYERS; do
  [ "$l" -le "$MAX_ONE_FUNCTION" ] || continue
  KILN_JIT_SHARE=0 KILN_CACHE_DIR=off KILN_THREADS=1 "$KILN" "$ROOT/benchmarks/compile/compile_bench.lisp" "$l"
done

#!/bin/sh
# First call of a jitted SGD step on a new signature against MLP depth (issue 30,
# SPEC §17): Kiln tiered (the default: traced and interpreted while the kernel
# compiles in the background), Kiln with KILN_JIT=sync (the first call waits for
# the compile), and PyTorch's first eager step (float64, one thread), in one run.
# Usage: benchmarks/compile/first_call.sh [KILN] [LAYERS ...]
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${1:-$ROOT/build/kiln}
[ $# -gt 0 ] && shift
LAYERS=${*:-1 2 4 8 16 32}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%Y-%m-%d)"
echo "kiln, tiered (default):"
KILN_CACHE_DIR=off KILN_THREADS=1 "$KILN" "$ROOT/benchmarks/compile/first_call.lisp" $LAYERS
echo "kiln, KILN_JIT=sync:"
KILN_JIT=sync KILN_CACHE_DIR=off KILN_THREADS=1 "$KILN" "$ROOT/benchmarks/compile/first_call.lisp" $LAYERS
echo "pytorch:"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  "$PY" "$ROOT/benchmarks/compile/first_call_torch.py" $LAYERS

#!/bin/sh
# Per-example gradients of the digits MLP at batch 128 (issue 29): Kiln's
# (jit (vmap (grad loss 0) '(#f 0 0))) against PyTorch's vmap of grad (torch.func, or
# functorch on PyTorch 1.x), float64, 1 thread each, side by side in one run.
# Usage: benchmarks/vmap/run.sh [KILN]   (PyTorch from Debian's python3-torch)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${1:-$ROOT/build/kiln}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%Y-%m-%d)"
KILN_THREADS=1 "$KILN" "$ROOT/benchmarks/vmap/per_example.lisp"
(unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  "$PY" "$ROOT/benchmarks/vmap/per_example_torch.py")

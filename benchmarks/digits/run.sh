#!/bin/sh
# examples/digits.lisp against the same training in PyTorch (1 thread, float64): the
# same split, initial weights and minibatches, exported by Kiln as .npy files.
# Prints each side's epochs, then mean seconds per epoch (epochs 2.. : the first
# includes Kiln's compile), final training loss and test accuracy side by side.
# Usage: benchmarks/digits/run.sh [KILN] [EPOCHS]   (needs python3-sklearn's data set;
# PyTorch and NumPy from Debian's python3-torch / python3-numpy)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${1:-$ROOT/build/kiln}
EPOCHS=${2:-30}
NAME=digits
. "$ROOT/benchmarks/lib/digits_setup.sh"
KILN_THREADS=1 "$KILN" "$ROOT/examples/digits.lisp" "$DATA" "$DIR" --epochs "$EPOCHS" --export "$DIR" \
  2>/dev/null >"$DIR/kiln.txt"
OMP_NUM_THREADS=1 "$PY" "$ROOT/benchmarks/digits/digits_torch.py" "$DIR" >"$DIR/torch.txt"
"$PY" "$ROOT/benchmarks/lib/digits_report.py" "$DIR/kiln.txt" "$DIR/torch.txt"

#!/bin/sh
# examples/cnn_digits.lisp against the same training in PyTorch (1 thread, float64):
# the same split, initial weights and minibatches, exported by Kiln as .npy files.
# Prints the BLAS PyTorch loaded, each side's first and last epoch losses, the
# largest per-step loss difference, then mean seconds per epoch (epochs 2.. : the
# first includes Kiln's compile), final training loss and test accuracy side by side.
# Usage: benchmarks/cnn_digits/run.sh [KILN] [EPOCHS]   (needs python3-sklearn's data
# set; PyTorch and NumPy from Debian's python3-torch / python3-numpy; install
# libopenblas0-pthread, or torch falls back to the reference BLAS)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${1:-$ROOT/build/kiln}
EPOCHS=${2:-15}
NAME=cnn_digits
. "$ROOT/benchmarks/lib/digits_setup.sh"
KILN_THREADS=1 "$KILN" "$ROOT/examples/cnn_digits.lisp" "$DATA" "$DIR" --epochs "$EPOCHS" --export "$DIR" \
  2>/dev/null >"$DIR/kiln.txt"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  "$PY" "$ROOT/benchmarks/cnn_digits/cnn_torch.py" "$DIR" >"$DIR/torch.txt"
"$PY" "$ROOT/benchmarks/lib/digits_report.py" "$DIR/kiln.txt" "$DIR/torch.txt"

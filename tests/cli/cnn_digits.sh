#!/usr/bin/env bash
# examples/cnn_digits.lisp at a reduced size (2 epochs): it must run, print
# `test accuracy NN.NN%` (at least 85% after 2 epochs; the full 15 reach 98%) and
# save its model; and, where Debian's python3-torch is there, its PyTorch float64
# twin (benchmarks/cnn_digits/cnn_torch.py), started from the same weights and
# minibatches, must agree on every step's loss to 1e-9 relative. Skips (status 0,
# saying so) without python3-sklearn's digits file.
#
# usage: cnn_digits.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")
ROOT=$2
DATA=${DIGITS_CSV:-/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz}
if [ ! -f "$DATA" ]; then
  echo "cnn_digits: skipped ($DATA not found: python3-sklearn is not installed)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$KILN" "$ROOT/examples/cnn_digits.lisp" "$DATA" "$tmp" --epochs 2 2>&1)
status=$?
echo "$out" | tail -4
if [ $status -ne 0 ]; then echo "FAIL: status $status"; exit 1; fi
acc=$(echo "$out" | sed -n 's/^test accuracy \([0-9]*\.[0-9][0-9]\)% on 360 held-out digits$/\1/p')
if [ -z "$acc" ]; then echo "FAIL: no 'test accuracy NN.NN%' line"; exit 1; fi
if ! python3 -c "import sys; sys.exit(0 if float('$acc') >= 85 else 1)"; then
  echo "FAIL: test accuracy $acc% after 2 epochs"
  exit 1
fi
if [ ! -s "$tmp/cnn-digits-model.kiln" ]; then echo "FAIL: no model file"; exit 1; fi

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
  echo "cnn_digits: PyTorch comparison skipped (python3-torch is not installed)"
  exit 0
fi
mkdir "$tmp/export"
"$KILN" "$ROOT/examples/cnn_digits.lisp" "$DATA" "$tmp" --epochs 2 --export "$tmp/export" >"$tmp/kiln.txt" 2>/dev/null \
  || { echo "FAIL: --export run"; exit 1; }
OMP_NUM_THREADS=1 "$PY" "$ROOT/benchmarks/cnn_digits/cnn_torch.py" "$tmp/export" >"$tmp/torch.txt" \
  || { echo "FAIL: cnn_torch.py"; exit 1; }
"$PY" "$ROOT/tests/cli/step_losses_agree.py" cnn_digits "$tmp/kiln.txt" "$tmp/torch.txt"

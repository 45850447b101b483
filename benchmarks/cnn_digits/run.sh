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
DATA=${DIGITS_CSV:-/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if [ ! -f "$DATA" ]; then
  echo "cnn_digits: $DATA not found (install python3-sklearn, or set DIGITS_CSV)"
  exit 77
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%Y-%m-%d)"
KILN_THREADS=1 "$KILN" "$ROOT/examples/cnn_digits.lisp" "$DATA" "$DIR" --epochs "$EPOCHS" --export "$DIR" \
  2>/dev/null >"$DIR/kiln.txt"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  "$PY" "$ROOT/benchmarks/cnn_digits/cnn_torch.py" "$DIR" >"$DIR/torch.txt"
"$PY" - "$DIR/kiln.txt" "$DIR/torch.txt" <<'PYEOF'
import sys
def read(path):
    epochs, steps, final, acc, blas = [], [], None, None, None
    for line in open(path):
        w = line.split()
        if w and w[0] == "epoch": epochs.append((float(w[3]), float(w[5])))
        elif w and w[0] == "step": steps.append(float(w[1]))
        elif w and w[0] == "final-loss": final = float(w[1])
        elif w and w[0] == "test-accuracy": acc = float(w[1])
        elif w and w[0] == "blas": blas = " ".join(w[1:])
    return epochs, steps, final, acc, blas
k, t = read(sys.argv[1]), read(sys.argv[2])
print(f"PyTorch's BLAS: {t[4]}")
for name, (ep, _, final, acc, _) in (("kiln", k), ("pytorch", t)):
    print(f"{name:8s} " + " ".join(f"{l:.6f}" for l, _ in ep[:3]) + " ... " + f"{ep[-1][0]:.12f}")
worst = max(abs(a - b) / abs(b) for a, b in zip(k[1], t[1]))
mean = lambda ep: sum(s for _, s in ep[1:]) / max(1, len(ep) - 1)
print("| | Kiln (jit step) | PyTorch | PyTorch / Kiln |")
print("|---|---|---|---|")
print(f"| seconds per epoch (mean of epochs 2-{len(k[0])}) | {mean(k[0]):.4f} | {mean(t[0]):.4f} | {mean(t[0]) / mean(k[0]):.1f}x |")
print(f"| first epoch, seconds (Kiln: with its compiles) | {k[0][0][1]:.4f} | {t[0][0][1]:.4f} | |")
print(f"| final training loss | {k[2]:.15g} | {t[2]:.15g} | difference {abs(k[2] - t[2]):.2e} |")
print(f"| test accuracy | {100 * k[3]:.2f}% | {100 * t[3]:.2f}% | |")
print(f"| largest per-step loss difference ({len(k[1])} steps), relative | {worst:.2e} | | |")
PYEOF

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
DATA=${DIGITS_CSV:-/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if [ ! -f "$DATA" ]; then
  echo "digits: $DATA not found (install python3-sklearn, or set DIGITS_CSV)"
  exit 77
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%Y-%m-%d)"
KILN_THREADS=1 "$KILN" "$ROOT/examples/digits.lisp" "$DATA" "$DIR" --epochs "$EPOCHS" --export "$DIR" \
  2>/dev/null >"$DIR/kiln.txt"
OMP_NUM_THREADS=1 "$PY" "$ROOT/benchmarks/digits/digits_torch.py" "$DIR" >"$DIR/torch.txt"
"$PY" - "$DIR/kiln.txt" "$DIR/torch.txt" <<'PYEOF'
import sys
def read(path):
    epochs, final, acc = [], None, None
    for line in open(path):
        w = line.split()
        if w and w[0] == "epoch": epochs.append((float(w[3]), float(w[5])))
        elif w and w[0] == "final-loss": final = float(w[1])
        elif w and w[0] == "test-accuracy": acc = float(w[1])
    return epochs, final, acc
k, t = read(sys.argv[1]), read(sys.argv[2])
for name, (ep, final, acc) in (("kiln", k), ("pytorch", t)):
    print(f"{name:8s} " + " ".join(f"{l:.6f}" for l, _ in ep[:3]) + " ... " + f"{ep[-1][0]:.12f}")
mean = lambda ep: sum(s for _, s in ep[1:]) / max(1, len(ep) - 1)
print("| | Kiln (jit step) | PyTorch | PyTorch / Kiln |")
print("|---|---|---|---|")
print(f"| seconds per epoch (mean of epochs 2-{len(k[0])}) | {mean(k[0]):.4f} | {mean(t[0]):.4f} | {mean(t[0]) / mean(k[0]):.1f}x |")
print(f"| first epoch, seconds (Kiln: with its compiles) | {k[0][0][1]:.4f} | {t[0][0][1]:.4f} | |")
print(f"| final training loss | {k[1]:.15g} | {t[1]:.15g} | difference {abs(k[1] - t[1]):.2e} |")
print(f"| test accuracy | {100 * k[2]:.2f}% | {100 * t[2]:.2f}% | |")
worst = max(abs(a - b) for (a, _), (b, _) in zip(k[0], t[0]))
print(f"| largest per-epoch mean-loss difference | {worst:.2e} | | |")
PYEOF

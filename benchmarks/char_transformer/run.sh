#!/bin/sh
# examples/char_transformer.lisp against the same training in PyTorch (1 thread,
# float64, dropout off): the same text, initial weights and batches, exported by Kiln
# as .npy files. Prints the BLAS PyTorch loaded, each side's first and last losses, the
# largest per-step loss difference, and the training step's seconds side by side
# (median over steps 2..: the first includes Kiln's compile; KILN_JIT=sync, so every
# step runs the kernel).
# Usage: benchmarks/char_transformer/run.sh [KILN] [STEPS] [TEXT]
# (PyTorch and NumPy from Debian's python3-torch / python3-numpy; install
# libopenblas0-pthread, or torch falls back to the reference BLAS)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${1:-$ROOT/build/kiln}
STEPS=${2:-100}
TEXT=${3:-/usr/share/common-licenses/GPL-3}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%Y-%m-%d)"
KILN_JIT=sync KILN_THREADS=1 "$KILN" "$ROOT/examples/char_transformer.lisp" "$TEXT" --steps "$STEPS" --dropout 0 --export "$DIR" \
  2>/dev/null >"$DIR/kiln.txt"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  "$PY" "$ROOT/benchmarks/char_transformer/transformer_torch.py" "$DIR" >"$DIR/torch.txt"
"$PY" - "$DIR/kiln.txt" "$DIR/torch.txt" <<'PYEOF'
import statistics, sys
def read(path):
    steps, blas = [], None
    for line in open(path):
        w = line.split()
        if w and w[0] == "step": steps.append((float(w[1]), float(w[3])))
        elif w and w[0] == "blas": blas = " ".join(w[1:])
    return steps, blas
(k, _), (t, blas) = read(sys.argv[1]), read(sys.argv[2])
print(f"PyTorch's BLAS: {blas}")
for name, s in (("kiln", k), ("pytorch", t)):
    print(f"{name:8s} " + " ".join(f"{l:.6f}" for l, _ in s[:3]) + " ... " + f"{s[-1][0]:.12f}")
worst = max(abs(a[0] - b[0]) / abs(b[0]) for a, b in zip(k, t))
med = lambda s: statistics.median(x for _, x in s[1:])
print("| | Kiln (jit step) | PyTorch | PyTorch / Kiln |")
print("|---|---|---|---|")
print(f"| seconds per training step (median of steps 2-{len(k)}) | {med(k):.4f} | {med(t):.4f} | {med(t) / med(k):.2f}x |")
print(f"| first step, seconds (Kiln: with its compile) | {k[0][1]:.4f} | {t[0][1]:.4f} | |")
print(f"| loss after {len(k)} steps | {k[-1][0]:.15g} | {t[-1][0]:.15g} | difference {abs(k[-1][0] - t[-1][0]):.2e} |")
print(f"| largest per-step loss difference ({len(k)} steps), relative | {worst:.2e} | | |")
PYEOF

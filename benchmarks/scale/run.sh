#!/bin/sh
# The width x depth x threads table of issue 30 (item 5): a jitted SGD step of a
# ReLU MLP (batch 64, float64) in Kiln against the same step in PyTorch with
# OpenBLAS, side by side in one run: for each cell Kiln then PyTorch, with the same
# thread count (KILN_THREADS / torch.set_num_threads), OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE unset. Prints the raw lines, then a markdown table: per step, CPU
# ms for 1 thread (process CPU time: fair on a loaded machine), wall ms for 2 threads
# (CPU time would count both threads).
# Usage: benchmarks/scale/run.sh [KILN] [WIDTHS] [DEPTHS] [THREADS]
#   e.g. benchmarks/scale/run.sh build/kiln "64 256 1024" "2 8 32" "1 2"
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${1:-$ROOT/build/kiln}
WIDTHS=${2:-64 256 1024}
DEPTHS=${3:-2 8 32}
THREADS=${4:-1 2}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
RAW=$(mktemp)
trap 'rm -f "$RAW"' EXIT
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for w in $WIDTHS; do
  for d in $DEPTHS; do
    # About 2e10 multiply-adds per cell (6 * batch * w^2 * d per step), 3 to 2000 steps.
    steps=$(( 20000000000 / (6 * 64 * w * w * d) ))
    [ "$steps" -lt 3 ] && steps=3
    [ "$steps" -gt 2000 ] && steps=2000
    for t in $THREADS; do
      k=$(KILN_JIT=sync KILN_THREADS=$t "$KILN" "$ROOT/benchmarks/scale/step.lisp" "$w" "$d" "$steps")
      p=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t \
            "$PY" "$ROOT/benchmarks/scale/step_torch.py" "$w" "$d" "$steps" "$t")
      echo "threads $t $k $p" | tee -a "$RAW"
    done
  done
done
echo
echo "| width | depth | threads | measure | Kiln ms/step | PyTorch ms/step | PyTorch / Kiln |"
echo "|---|---|---|---|---|---|---|"
# threads T (kiln width W depth D steps S wall-ms A cpu-ms B) (torch width W depth D steps S wall-ms C cpu-ms E)
awk '{
  gsub(/[()]/, "");
  t = $2; w = $5; d = $7; kw = $11; kc = $13; pw = $22; pc = $24;
  if (t == 1) { m = "CPU"; k = kc; p = pc } else { m = "wall"; k = kw; p = pw }
  if ($14 != "torch") { printf "| %s | %s | %s | %s | %.3f | (no torch) | |\n", w, d, t, m, k; next }
  printf "| %s | %s | %s | %s | %.3f | %.3f | %.2fx |\n", w, d, t, m, k, p, (k > 0 ? p / k : 0)
}' "$RAW"

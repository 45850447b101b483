#!/bin/sh
# The digits example's whole run, cold, against PyTorch's whole run (issue 30):
# wall-clock seconds of each process from start to exit, Kiln with an empty kernel
# cache both tiered (the default) and with KILN_JIT=sync, then warm (the kernels
# cached); PyTorch float64, one thread, OpenBLAS tuning variables unset. Best of
# RUNS (default 3) each, alternating.
# Usage: benchmarks/digits/cold.sh [KILN] [EPOCHS]
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KILN=${1:-$ROOT/build/kiln}
EPOCHS=${2:-30}
RUNS=${RUNS:-3}
NAME=digits
. "$ROOT/benchmarks/lib/digits_setup.sh"
# The split, initial weights and minibatches PyTorch trains on (not timed).
KILN_THREADS=1 "$KILN" "$ROOT/examples/digits.lisp" "$DATA" "$DIR" --epochs "$EPOCHS" --export "$DIR" >/dev/null 2>&1
secs() { # secs COMMAND... -> wall seconds
  t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
  printf "%.3f" "$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)"
}
kiln_run() { mkdir -p "$DIR/out"; KILN_THREADS=1 "$KILN" "$ROOT/examples/digits.lisp" "$DATA" "$DIR/out" --epochs "$EPOCHS"; }
cold_tiered() { rm -rf "$DIR/cache"; KILN_CACHE_DIR="$DIR/cache" kiln_run; }
cold_sync() { rm -rf "$DIR/cache"; KILN_JIT=sync KILN_CACHE_DIR="$DIR/cache" kiln_run; }
warm() { KILN_CACHE_DIR="$DIR/warm" kiln_run; }
torch_run() {
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
    "$PY" "$ROOT/benchmarks/digits/digits_torch.py" "$DIR"
}
warm >/dev/null 2>&1  # fills $DIR/warm
best() { sort -n | head -1; }
ct=""; cs=""; w=""; t=""
for i in $(seq 1 "$RUNS"); do
  ct="$ct $(secs cold_tiered)"; cs="$cs $(secs cold_sync)"; w="$w $(secs warm)"; t="$t $(secs torch_run)"
done
echo "| run (best of $RUNS, whole process, seconds) | Kiln | PyTorch |"
echo "|---|---|---|"
echo "| cold kernel cache, tiered (default) | $(echo $ct | tr ' ' '\n' | best) | $(echo $t | tr ' ' '\n' | best) |"
echo "| cold kernel cache, KILN_JIT=sync | $(echo $cs | tr ' ' '\n' | best) | |"
echo "| warm kernel cache | $(echo $w | tr ' ' '\n' | best) | |"
echo "all runs: tiered$ct; sync$cs; warm$w; pytorch$t"

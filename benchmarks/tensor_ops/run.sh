#!/usr/bin/env bash
# run.sh — tensor op benchmark: Kiln (KILN_THREADS=1 and all cores) against
# plain C loops (-O3 -ffp-contract=off, and the same with -march=native) and
# PyTorch float64 on one thread. Prints a Markdown table of microseconds per
# call (lower is better).
#   usage: benchmarks/tensor_ops/run.sh [PATH-TO-KILN]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kiln=${1:-$root/build/kiln}
[ -x "$kiln" ] || { echo "run.sh: no kiln binary at $kiln (build first or pass its path)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -O3 -ffp-contract=off -o "$tmp/c_plain" "$here/baseline.c"
cc -O3 -march=native -ffp-contract=off -o "$tmp/c_native" "$here/baseline.c"
"$tmp/c_plain" > "$tmp/c_plain.txt"
"$tmp/c_native" > "$tmp/c_native.txt"
KILN_THREADS=1 "$kiln" "$here/bench.lisp" > "$tmp/kiln1.txt"
"$kiln" "$here/bench.lisp" > "$tmp/kilnN.txt"
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import torch' 2>/dev/null && py=/usr/bin/python3
if "$py" -c 'import torch' 2>/dev/null; then
  "$py" "$here/torch_bench.py" > "$tmp/torch.txt"
else
  echo "run.sh: python3 with torch not found; torch column left empty" >&2
  : > "$tmp/torch.txt"
fi

cores=$(nproc)
echo "| op | Kiln 1 thread | Kiln $cores threads | C -O3 | C -O3 -march=native | PyTorch 1 thread |"
echo "|---|---:|---:|---:|---:|---:|"
for op in $(awk '{print $1}' "$tmp/c_plain.txt"); do
  get() { awk -v o="$op" '$1 == o { printf "%.3f", $2 }' "$1"; }
  echo "| $op | $(get "$tmp/kiln1.txt") | $(get "$tmp/kilnN.txt") | $(get "$tmp/c_plain.txt") | $(get "$tmp/c_native.txt") | $(get "$tmp/torch.txt") |"
done
echo
echo "(microseconds per call; add_2x2 is the per-call overhead: multiply by 1000 for ns)"

#!/usr/bin/env bash
# run.sh — save-model/load-model of a 100 MB model beside torch.save/torch.load of
# the same tensors (Debian's python3-torch), alternating processes RUNS times
# (default 3) with 3 saves and loads each; prints the median of each figure and
# the file sizes. benchmarks/RESULTS.md ("Model files") holds a run.
#   benchmarks/model_io/run.sh [KILN_BINARY]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kiln="${1:-$here/../../build/kiln}"
python="${PYTHON:-/usr/bin/python3}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
out=""
for _ in $(seq 1 "${RUNS:-3}"); do
  out+="$("$kiln" "$here/bench.lisp" "$dir" 3 | sed 's/^/kiln /')"$'\n'
  out+="$("$python" "$here/torch_bench.py" "$dir" 3 | sed 's/^/torch /')"$'\n'
done
median() { grep "^$1 " <<<"$out" | awk '{print $NF}' | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
floats=104759296
kiln_bytes=$(stat -c %s "$dir/bench.kiln")
torch_bytes=$(stat -c %s "$dir/bench.pt" 2>/dev/null || echo 0)
printf '| | save (ms) | load (ms) | file bytes | over the floats |\n|---|---|---|---|---|\n'
printf '| Kiln save-model / load-model (fsync, atomic rename) | %s | %s | %s | %.3f%% |\n' \
  "$(median 'kiln save')" "$(median 'kiln load')" "$kiln_bytes" "$(echo "($kiln_bytes-$floats)*100/$floats" | bc -l)"
printf '| torch.save / torch.load | %s | %s | %s | %.3f%% |\n' \
  "$(median 'torch save')" "$(median 'torch load')" "$torch_bytes" "$(echo "($torch_bytes-$floats)*100/$floats" | bc -l)"
printf '| torch.save + fsync | %s | | | |\n' "$(median 'torch save+fsync')"

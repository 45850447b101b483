#!/usr/bin/env bash
# examples/char_transformer.lisp at a reduced size: 8 steps of 8 windows on the first
# 3000 characters of a text (GPL-3 where Debian's base-files ships it, else a text made
# here). It must run, draw the loss curve, end with a lower loss than it began with and
# print a sampled paragraph of the requested length; and, where Debian's python3-torch
# is there, its PyTorch float64 twin (benchmarks/char_transformer/transformer_torch.py),
# started from the same weights and batches with dropout off, must agree on every
# step's loss to 1e-9 relative. Both runs take batches of 8, so they share one
# compiled training step (with a cold kernel cache its compile is most of the time).
#
# usage: char_transformer.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")
ROOT=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -f /usr/share/common-licenses/GPL-3 ]; then
  head -c 3000 /usr/share/common-licenses/GPL-3 >"$tmp/text.txt"
else
  for i in $(seq 60); do echo "the quick brown fox jumps over the lazy dog, line $i."; done >"$tmp/text.txt"
fi
out=$("$KILN" "$ROOT/examples/char_transformer.lisp" "$tmp/text.txt" --steps 8 --batch 8 --sample 80 2>&1)
status=$?
echo "$out" | tail -6
if [ $status -ne 0 ]; then echo "FAIL: status $status"; exit 1; fi
grep -q "char transformer: loss per step" <<<"$out" || { echo "FAIL: no loss plot"; exit 1; }
read -r first last < <(echo "$out" | sed -n 's/^first loss \([0-9.]*\), last loss \([0-9.]*\)$/\1 \2/p')
if [ -z "${first:-}" ]; then echo "FAIL: no 'first loss ..., last loss ...' line"; exit 1; fi
if ! awk -v f="$first" -v l="$last" 'BEGIN { exit !(l < f - 0.3) }'; then
  echo "FAIL: the loss did not decrease: $first -> $last"
  exit 1
fi
sample=$(echo "$out" | sed -n '/^sample (temperature 0.8) after /{n;p;}')
if [ "${#sample}" -lt 40 ]; then echo "FAIL: no sampled paragraph (got '$sample')"; exit 1; fi

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
  echo "char_transformer: PyTorch comparison skipped (python3-torch is not installed)"
  exit 0
fi
mkdir "$tmp/export"
"$KILN" "$ROOT/examples/char_transformer.lisp" "$tmp/text.txt" --steps 8 --batch 8 --dropout 0 \
  --export "$tmp/export" >"$tmp/kiln.txt" 2>/dev/null || { echo "FAIL: --export run"; exit 1; }
OMP_NUM_THREADS=1 "$PY" "$ROOT/benchmarks/char_transformer/transformer_torch.py" "$tmp/export" >"$tmp/torch.txt" \
  || { echo "FAIL: transformer_torch.py"; exit 1; }
"$PY" "$ROOT/tests/cli/step_losses_agree.py" char_transformer "$tmp/kiln.txt" "$tmp/torch.txt"

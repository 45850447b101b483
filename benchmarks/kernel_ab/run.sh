#!/usr/bin/env bash
# run.sh — compares the 64x256->64 training kernels two Kiln builds generate.
#
#   benchmarks/kernel_ab/run.sh KILN_A [KILN_B]
#
# Each kiln binary compiles tensor_bench.lisp's kernels into a fresh cache
# directory (`tensor_bench.lisp --checks`, KILN_THREADS=1), then kernel_ab
# times the 64x256->64 training kernels alternately (see kernel_ab.c).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -ge 1 ] || { echo "usage: $0 KILN_A [KILN_B]" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cc -std=c11 -O2 -Wall -Wextra -o "$tmp/kernel_ab" "$here/kernel_ab.c" -ldl
kernels=()
n=0
for kiln in "$@"; do
  n=$((n + 1))
  cache="$tmp/cache$n"
  KILN_THREADS=1 KILN_CACHE_DIR="$cache" "$kiln" "$root/benchmarks/tensor_bench.lisp" --checks >/dev/null
  found=""
  for so in "$cache"/*.so; do
    if "$tmp/kernel_ab" --is-training-kernel "$so" 2>/dev/null; then found="$so"; break; fi
  done
  [ -n "$found" ] || { echo "run.sh: $kiln made no 64x256->64 training kernel" >&2; exit 1; }
  cp "$found" "$tmp/kernel$n.so"
  kernels+=("$tmp/kernel$n.so")
  echo "kernel$n.so: from $kiln"
done
"$tmp/kernel_ab" "${kernels[@]}"

#!/usr/bin/env bash
# run.sh — builds benchmarks/c_step/step.c with plain `cc` (no CMake) in a temporary
# directory and runs it: the hand-written C yardstick for tensor_bench.lisp.
#
#   benchmarks/c_step/run.sh [LEVEL]     LEVEL: x86-64-v4, x86-64-v3, x86-64-v2 or x86-64
#
# Without LEVEL it is picked from the running CPU as Kiln's JIT picks it:
# avx512f+bw+vl+dq -> v4, avx2+fma+bmi2 -> v3, sse4.2+popcnt -> v2, else x86-64.
# Flags: -std=c11 -O3 -ffp-contract=off -march=LEVEL (no FMA contraction, no
# -ffast-math); exits 1 if objdump finds a fused multiply-add in the binary.
# Prints one line "c_step: cc FLAGS (COMPILER VERSION); no FMA instructions (objdump)",
# then step.c's lines.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cc="${CC:-cc}"
level="${1:-}"

if [ -z "$level" ]; then
  if [ "$(uname -m)" = x86_64 ]; then
    flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
    has() { for f in "$@"; do [[ "$flags" == *" $f "* ]] || return 1; done; }
    if has avx512f avx512bw avx512vl avx512dq; then level=x86-64-v4
    elif has avx2 fma bmi2; then level=x86-64-v3
    elif has sse4_2 popcnt; then level=x86-64-v2
    else level=x86-64
    fi
  fi
fi

cflags=(-std=c11 -O3 -ffp-contract=off)
[ -n "$level" ] && cflags+=("-march=$level")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cc" "${cflags[@]}" -o "$tmp/step" "$here/step.c"

fma="not checked (no objdump)"
if command -v objdump >/dev/null 2>&1; then
  if objdump -d "$tmp/step" | grep -E '\svf(n)?m(add|sub)' >/dev/null; then
    echo "c_step: the binary contains fused multiply-adds; step.c must not be contracted" >&2
    exit 1
  fi
  fma="no FMA instructions (objdump)"
fi
echo "c_step: $cc ${cflags[*]} ($("$cc" --version | head -1)); $fma"
"$tmp/step"

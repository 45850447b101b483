#!/usr/bin/env bash
# Continuation costs, two kiln binaries side by side: median of RUNS wall times
# (seconds) for each program here and for fib and tak of benchmarks/core.
# usage: benchmarks/callcc/run.sh BASELINE_KILN [KILN]   (default KILN: build/kiln)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
base=$(realpath "$1")
kiln=$(realpath "${2:-$repo/build/kiln}")
runs=${RUNS:-3}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
one() {  # prints seconds, or "fails" when the program exits non-zero
  local s e
  s=$(date +%s.%N)
  if ! "$1" "$2" >/dev/null 2>&1; then echo fails; return; fi
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
printf '| program | %s | %s |\n|---|---|---|\n' "baseline" "this build"
for p in "$here"/escape.scm "$here"/escape_ec.scm "$here"/escape_deep.scm "$here"/generator.scm "$here"/ctak.scm \
         "$repo"/benchmarks/core/fib.scm "$repo"/benchmarks/core/tak.scm; do
  a=(); b=()
  for ((i = 0; i < runs; i++)); do a+=("$(one "$base" "$p")"); b+=("$(one "$kiln" "$p")"); done
  ma=$(printf '%s\n' "${a[@]}" | median); mb=$(printf '%s\n' "${b[@]}" | median)
  printf '| %s | %s | %s |\n' "$(basename "$p" .scm)" "$ma" "$mb"
done

#!/usr/bin/env bash
# Core interpreter benchmark: runs each benchmarks/core/*.scm under kiln, the
# Guile 3 interpreter (--no-auto-compile, empty compile cache) and compiled
# Guile (auto-compiled by a warm-up run), checks all three print the same
# answer, and writes median-of-3 wall times to benchmarks/RESULTS.md under
# "## Core interpreter vs Guile 3" (other sections of that file are kept).
#
# usage: benchmarks/core/run.sh [KILN_BINARY]   (default: build/kiln)
# env:   RUNS=3 (timed runs per program and implementation),
#        RESULTS=FILE (default benchmarks/RESULTS.md)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kiln=$(realpath "${1:-$repo/build/kiln}")
runs=${RUNS:-3}
results=${RESULTS:-$repo/benchmarks/RESULTS.md}
heading="## Core interpreter vs Guile 3"

[ -x "$kiln" ] || { echo "run.sh: no kiln binary at $kiln (run 'make build' first)" >&2; exit 1; }
if ! command -v guile >/dev/null 2>&1 || ! guile --version | head -1 | grep ' 3\.' >/dev/null; then
  echo "run.sh: Guile 3 is needed for this comparison; install it with:" >&2
  echo "  apt-get install guile-3.0" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/interp-cache" "$tmp/compiled-cache"

# One timed run: prints "MILLISECONDS" and leaves stdout in $tmp/out.
time_ms() {
  local start end
  start=$(date +%s%N)
  "$@" >"$tmp/out" 2>"$tmp/err" || { echo "run.sh: failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

# median_ms NAME EXPECTED CMD... : RUNS timed runs, checks each answer.
median_ms() {
  local name=$1 expected=$2
  shift 2
  local times=() t
  for _ in $(seq "$runs"); do
    t=$(time_ms "$@")
    if [ "$(cat "$tmp/out")" != "$expected" ]; then
      echo "run.sh: $name: answers differ: expected '$expected', got '$(cat "$tmp/out")' from: $*" >&2
      exit 1
    fi
    times+=("$t")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

interp=(env XDG_CACHE_HOME="$tmp/interp-cache" GUILE_AUTO_COMPILE=0 guile --no-auto-compile)
compiled=(env XDG_CACHE_HOME="$tmp/compiled-cache" guile)

rows=()
for prog in "$here"/*.scm; do
  name=$(basename "$prog" .scm)
  cd "$here"
  "${compiled[@]}" "$prog" >"$tmp/warm" 2>/dev/null  # compiles into the cache
  answer=$(cat "$tmp/warm")
  echo "== $name: $answer" >&2
  k=$(median_ms "$name" "$answer" "$kiln" "$prog")
  gi=$(median_ms "$name" "$answer" "${interp[@]}" "$prog")
  gc=$(median_ms "$name" "$answer" "${compiled[@]}" "$prog")
  echo "   kiln $k ms, guile interpreter $gi ms, guile compiled $gc ms" >&2
  rows+=("$name|$answer|$k|$gi|$gc")
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
section=$(
  echo "$heading"
  echo
  echo "$(date -u +%Y-%m-%d), $cpu, $(nproc) cores. $(guile --version | head -1)."
  echo "Wall time in seconds, median of $runs runs, including process start-up."
  echo "Ratios above 1 mean kiln is slower. Made by \`benchmarks/core/run.sh\`."
  echo
  echo "| program | answer | kiln | guile interpreter | guile compiled | kiln / interpreter | kiln / compiled |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}" | awk -F'|' '
    function s(ms) { return sprintf("%.3f", ms / 1000) }
    function r(a, b) { return sprintf("%.2f", a / b) }
    { printf "| %s | `%s` | %s | %s | %s | %s | %s |\n", $1, $2, s($3), s($4), s($5), r($3, $4), r($3, $5)
      lk += log($3); li += log($4); lc += log($5); n++ }
    END { k = exp(lk / n); i = exp(li / n); c = exp(lc / n)
          printf "| **geometric mean** | | %s | %s | %s | %s | %s |\n", s(k), s(i), s(c), r(k, i), r(k, c) }'
)

# Replace our section (up to the next "## " heading) or append it.
touch "$results"
[ -s "$results" ] || printf '# Benchmark results\n\n' >"$results"
awk -v heading="$heading" -v section_file=<(printf '%s\n' "$section") '
  function emit() { while ((getline line < section_file) > 0) print line; print ""; done = 1 }
  $0 == heading { emit(); skipping = 1; next }
  skipping && /^## / { skipping = 0 }
  !skipping { print }
  END { if (!done) { print ""; emit() } }
' "$results" >"$tmp/results"
# Squeeze runs of blank lines that the replacement may leave.
cat -s "$tmp/results" >"$results"
echo "wrote $results" >&2
printf '%s\n' "$section"

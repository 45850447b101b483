#!/usr/bin/env bash
# format_check.sh — every C and C++ source of Kiln is as .clang-format says.
#
#   tests/style/format_check.sh SOURCE_DIR [CLANG_FORMAT]
#
# Lists each file clang-format would change, with its first differing line,
# and exits 1 if there is any. `make format` rewrites them.
set -u
root="${1:?usage: format_check.sh SOURCE_DIR [CLANG_FORMAT]}"
cf="${2:-clang-format}"
cd "$root" || exit 2
mapfile -t files < <(find runtime stdlib compiler repl tests/unit tests/runtime_only tests/compiler_only tests/stdlib_only tests/support benchmarks \
  -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.c' -o -name '*.inc' \) | sort)
# One clang-format for every file: it checks them all and reports each violation
# as FILE:LINE:COL. A process per file cost ~0.13 CPU s of start-up each (39 CPU s
# for 288 files, against 1.5 for one process; benchmarks/RESULTS.md, "CI time").
out="$("$cf" --dry-run --Werror "${files[@]}" 2>&1)"
status=$?
mapfile -t bad_files < <(printf '%s\n' "$out" | grep -o '^[^ ]*:[0-9]*:[0-9]*: error' | sed 's/: error$//' | awk -F: '!seen[$1]++')
for b in "${bad_files[@]}"; do echo "not formatted: $b"; done
if [ "$status" -ne 0 ] && [ "${#bad_files[@]}" -eq 0 ]; then
  printf '%s\n' "$out"  # clang-format failed without naming a file (a missing file, a bad .clang-format)
  echo "format_check: clang-format failed (status $status)"
  exit 1
fi
echo "format_check: ${#files[@]} files, ${#bad_files[@]} not formatted"
[ "${#bad_files[@]}" -eq 0 ]

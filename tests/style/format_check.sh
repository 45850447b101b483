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
bad=0
for f in "${files[@]}"; do
  if ! out="$("$cf" --dry-run --Werror "$f" 2>&1)"; then
    echo "not formatted: $(printf '%s\n' "$out" | grep -m1 -o '^[^ ]*:[0-9]*:[0-9]*')"
    bad=$((bad + 1))
  fi
done
echo "format_check: ${#files[@]} files, $bad not formatted"
[ "$bad" -eq 0 ]

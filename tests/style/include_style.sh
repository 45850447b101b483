#!/usr/bin/env bash
# Every project header is included by its path from the repository root
# ("runtime/eval.h", never "eval.h" or "../runtime/eval.h"), so an include line
# reads the same in every file and a moved header is found by one search.
# usage: include_style.sh REPO_DIR
set -euo pipefail
cd "$1"
bad=""
while IFS= read -r file; do
  dir=$(dirname "$file")
  while IFS= read -r inc; do
    [ -n "$inc" ] || continue
    if [[ "$inc" == *..* ]] || { [ ! -f "$inc" ] && [ -f "$dir/$inc" ]; }; then
      bad+="$file: #include \"$inc\""$'\n'
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(git ls-files -- '*.cpp' '*.h' '*.hpp' '*.c')
if [ -n "$bad" ]; then
  echo "includes not named from the repository root:"
  printf '%s' "$bad"
  exit 1
fi
echo "every project include is named from the repository root"

#!/usr/bin/env bash
# docs/architecture.md names every source file of the four layers (runtime/,
# compiler/, stdlib/ with stdlib/mpi_transport/, repl/), so a reader can find
# what a file is without opening it. The rule, stated at the top of the doc: a
# file is named by its path from the repository root in backquotes,
# `runtime/eval.cpp`; a header and its source may share one mention,
# `runtime/eval.{h,cpp}`, and all files of one stem `runtime/reader.*`.
# usage: architecture_names_every_file.sh REPO_DIR
set -euo pipefail
cd "$1"
doc=docs/architecture.md
[ -f "$doc" ] || { echo "$doc: missing"; exit 1; }
text=$(<"$doc")

section_for() {
  case "$1" in
    runtime/*) echo "## The runtime's files (\`runtime/\`)" ;;
    compiler/*) echo "## The compiler's files (\`compiler/\`)" ;;
    stdlib/mpi_transport/*) echo "## The standard library's files (\`stdlib/\`), under \`stdlib/mpi_transport/\`" ;;
    stdlib/*) echo "## The standard library's files (\`stdlib/\`)" ;;
    repl/*) echo "## The front doors' files (\`repl/\`)" ;;
  esac
}

missing=0
files=$( (find runtime compiler stdlib repl -maxdepth 1 -type f \
  \( -name '*.cpp' -o -name '*.h' -o -name '*.inc' -o -name '*.lisp' -o -name '*.c' -o -name '*.cmake' \)
  find stdlib/mpi_transport -type f) | LC_ALL=C sort)
for path in $files; do
  dir=${path%/*}
  name=${path##*/}
  stem=${name%.*}
  ext=${name##*.}
  re_dir=${dir//./\\.}
  re_stem=${stem//./\\.}
  # `dir/name.ext`, `dir/stem.*` or `dir/stem.{...,ext,...}`
  if grep -qE "\`${re_dir}/(${re_stem}\.${ext}|${re_stem}\.\*|${re_stem}\.\{([a-z]+,)*${ext}(,[a-z]+)*\})\`" <<<"$text"; then
    continue
  fi
  echo "$doc does not name $path: add the row"
  echo "    | \`$path\` | <what it is, from its header comment> |"
  hint=""
  case "$ext" in h | cpp) hint=" (or, if its partner is named, widen that mention to \`$dir/$stem.{h,cpp}\`)" ;; esac
  echo "  to the table under \"$(section_for "$path")\"$hint"
  missing=$((missing + 1))
done
if [ "$missing" -gt 0 ]; then
  echo "$missing file(s) not named in $doc"
  exit 1
fi
echo "$doc names every file of runtime/, compiler/, stdlib/ and repl/"

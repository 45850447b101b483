#!/usr/bin/env bash
# Every option the code accepts is in the help and the docs: the options are read
# out of the parsers (repl/main.cpp for kiln, repl/test_runner.cpp for kiln test)
# and the REPL commands out of repl/commands.cpp's kReplCommandNames, so a new
# one that is not documented fails here.
#
# usage: help_complete.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")
REPO=$(realpath "$2")
failures=0
checked=0

fail() {
  failures=$((failures + 1))
  echo "FAIL $1"
}

# in_help OPTION TEXT: OPTION appears in TEXT as a word of its own.
in_help() { grep -qE -- "(^|[ ,/(])$1([ ,=/)]|$)" <<<"$2"; }
# in_doc OPTION FILE: OPTION starts a `code span` in FILE.
in_doc() { grep -qE -- "\`$1[\` ]" "$REPO/$2"; }

# ---- kiln
main_opts=$(grep -oE 'a == "-[^"]*"' "$REPO/repl/main.cpp" | sed -E 's/^a == "(.*)"$/\1/' | sort -u)
[ "$(wc -l <<<"$main_opts")" -ge 10 ] || fail "found only these options in repl/main.cpp: $main_opts"
help=$("$KILN" --help)
for opt in $main_opts; do
  checked=$((checked + 1))
  in_help "$opt" "$help" || fail "kiln --help does not list $opt"
  in_doc "$opt" docs/cli.md || fail "docs/cli.md does not describe $opt"
done

# ---- kiln test (a lone "-" is a PATH there, not an option)
test_opts=$(grep -oE '(a == |has_value\()"-[^"]*"' "$REPO/repl/test_runner.cpp" |
  sed -E 's/^(a == |has_value\()"(.*)"$/\2/' | grep -vx -- '-' | sort -u)
[ "$(wc -l <<<"$test_opts")" -ge 12 ] || fail "found only these options in repl/test_runner.cpp: $test_opts"
test_help=$("$KILN" test --help)
summary=$(sed -n '/^kiln test runs/,/^$/p' <<<"$help")
for opt in $test_opts; do
  checked=$((checked + 1))
  in_help "$opt" "$test_help" || fail "kiln test --help does not list $opt"
  in_help "$opt" "$summary" || fail "kiln --help's summary of kiln test does not list $opt"
  in_doc "$opt" docs/testing.md || fail "docs/testing.md does not describe $opt"
done

# ---- REPL commands
commands=$(sed -n '/kReplCommandNames\[\] = {/,/nullptr/p' "$REPO/repl/commands.cpp" | grep -oE '"[a-z]+"' | tr -d '"')
[ "$(wc -w <<<"$commands")" -ge 8 ] || fail "found only these REPL commands: $commands"
repl_help=$(printf ',help\n' | "$KILN" -q -i)
for c in $commands; do
  checked=$((checked + 1))
  grep -qE -- "^  ,$c( |$)" <<<"$repl_help" || fail ",help does not list ,$c"
  grep -qF -- "| \`,$c" "$REPO/docs/repl.md" || fail "docs/repl.md's table of commands does not list ,$c"
done

echo "help_complete: $checked options and commands, $failures missing"
[ "$failures" -eq 0 ]

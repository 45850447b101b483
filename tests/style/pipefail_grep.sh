#!/usr/bin/env bash
# No shell script of the project pipes a command into `grep -q`. Under `set -o
# pipefail`, grep -q exits at its first match; a writer still writing then dies of
# SIGPIPE and the pipeline fails although it matched (shared/repros/ci_pipefail_grep_q.sh:
# a CI run once took the ASan build for a plain one this way). Capture the output
# first (`x=$(cmd); grep -q P <<<"$x"`) or send grep's output to /dev/null.
# usage: pipefail_grep.sh REPO_DIR
set -euo pipefail
cd "$1"
found=$(git ls-files -- '*.sh' .ci/run Makefile 2>/dev/null |
  xargs grep -nE '\|[[:space:]]*grep[[:space:]]+(-[[:alnum:]]*q|--quiet)' -- || true)
# Comments may name the bad form; code may not.
found=$(grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' <<<"$found" || true)
if [ -n "$found" ]; then
  echo "a pipe into grep -q (fails under pipefail when grep quits first):"
  echo "$found"
  exit 1
fi
echo "no pipe into grep -q"

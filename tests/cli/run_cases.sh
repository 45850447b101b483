#!/usr/bin/env bash
# Command-line tests as data: runs every case in cases.txt (same directory)
# against a kiln binary and reports failures as cases.txt:LINE.
#
# usage: run_cases.sh KILN_BINARY REPO_DIR
#
# A case is one line of fields separated by " | ":
#   STATUS | STDIN | COMMAND | EXPECTATION | EXPECTATION ...
# STATUS   the expected exit status.
# STDIN    "-" for /dev/null, else text piped in (printf %b escapes: \n, \t).
# COMMAND  "kiln ARGS..." with shell quoting, run with cwd tests/cli/fixtures;
#          or "sh: SCRIPT" run by bash with $KILN set, for cases needing setup.
# EXPECTATION (TEXT takes printf %b escapes):
#   out=TEXT  stdout is exactly TEXT (trailing newlines ignored)
#   out~TEXT  stdout contains TEXT       out!TEXT  stdout does not contain TEXT
#   out/RE    a line of stdout matches the extended regex RE
#   out^TEXT  the first line of stdout is TEXT
#   err...    the same checks on stderr
#   mix^TEXT  the first line of stdout and stderr merged into one pipe is TEXT
# Lines that are empty or start with # are ignored.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 KILN_BINARY REPO_DIR" >&2
  exit 2
fi
KILN=$(realpath "$1")
REPO=$(realpath "$2")
CASES="$REPO/tests/cli/cases.txt"
FIXTURES="$REPO/tests/cli/fixtures"
CASE_TIMEOUT=${KILN_CLI_TIMEOUT:-60}
export KILN

[ -x "$KILN" ] || { echo "run_cases.sh: not an executable: $KILN" >&2; exit 2; }
[ -f "$CASES" ] || { echo "run_cases.sh: missing $CASES" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

trim() {
  local s=$1
  s=${s#"${s%%[![:space:]]*}"}
  s=${s%"${s##*[![:space:]]}"}
  printf '%s' "$s"
}

# run_case STDIN COMMAND OUTFILE ERRFILE → sets $status
run_case() {
  local stdin=$1 cmd=$2 out=$3 err=$4
  local -a runner
  if [[ $cmd == sh:* ]]; then
    runner=(bash -c "${cmd#sh:}")
  else
    local -a words
    eval "words=($cmd)"
    if [ "${words[0]:-}" != kiln ]; then
      echo "command must start with 'kiln' or 'sh:'" >"$err"
      status=255
      return
    fi
    runner=("$KILN" "${words[@]:1}")
  fi
  # With OUTFILE == ERRFILE both streams share one descriptor, as in a pipe.
  (
    cd "$FIXTURES" || exit 255
    if [ "$out" = "$err" ]; then exec >"$out" 2>&1; else exec >"$out" 2>"$err"; fi
    if [ "$stdin" = - ]; then
      timeout -k 5 "$CASE_TIMEOUT" "${runner[@]}" </dev/null
    else
      printf '%b' "$stdin" | timeout -k 5 "$CASE_TIMEOUT" "${runner[@]}"
    fi
  )
  status=$?
}

# check KIND TEXT FILE → prints a complaint and returns 1 on mismatch
check() {
  local kind=$1 text want
  want=$(printf '%b' "$2")
  local file=$3 got
  case $kind in
    =) got=$(cat "$file"); [ "$got" == "$want" ] || { echo "expected exactly: $want"; return 1; } ;;
    '~') grep -qF -- "$want" "$file" || { echo "expected to contain: $want"; return 1; } ;;
    '!') ! grep -qF -- "$want" "$file" || { echo "expected not to contain: $want"; return 1; } ;;
    /) grep -qE -- "$want" "$file" || { echo "expected a line matching: $want"; return 1; } ;;
    ^) got=$(head -n 1 "$file"); [ "$got" == "$want" ] || { echo "expected first line: $want"; return 1; } ;;
    *) echo "unknown check '$kind'"; return 1 ;;
  esac
}

passed=0
failed=0
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
  lineno=$((lineno + 1))
  [[ -z ${line//[[:space:]]/} || $line == \#* ]] && continue
  # Split on " | " (a bare | inside a field stays part of it).
  fields=()
  rest=$line
  while [[ $rest == *" | "* ]]; do
    fields+=("$(trim "${rest%% | *}")")
    rest=${rest#* | }
  done
  fields+=("$(trim "$rest")")
  where="tests/cli/cases.txt:$lineno"
  if [ ${#fields[@]} -lt 3 ]; then
    echo "$where: malformed case (need STATUS | STDIN | COMMAND ...)"
    failed=$((failed + 1))
    continue
  fi
  want_status=${fields[0]} stdin=${fields[1]} cmd=${fields[2]}
  run_case "$stdin" "$cmd" "$work/out" "$work/err"

  problems=()
  [ "$status" = "$want_status" ] || problems+=("exit status $status, expected $want_status")
  for exp in "${fields[@]:3}"; do
    stream=${exp:0:3} kind=${exp:3:1} text=${exp:4}
    case $stream in
      out) file=$work/out ;;
      err) file=$work/err ;;
      mix)
        run_case "$stdin" "$cmd" "$work/mix" "$work/mix"
        file=$work/mix ;;
      *) problems+=("unknown expectation '$exp'"); continue ;;
    esac
    if ! msg=$(check "$kind" "$text" "$file"); then problems+=("$stream: $msg"); fi
  done

  if [ ${#problems[@]} -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "$where: FAIL: $cmd"
    for p in "${problems[@]}"; do echo "  $p"; done
    echo "  --- stdout:"; sed 's/^/  | /' "$work/out" | head -n 20
    echo "  --- stderr:"; sed 's/^/  | /' "$work/err" | head -n 20
  fi
done <"$CASES"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

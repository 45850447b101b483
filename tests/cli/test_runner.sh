#!/usr/bin/env bash
# `kiln test` itself (docs/testing.md "Golden tests and kiln test"): every
# option and test file the runner knows, on small test trees built here.
# Each case runs `kiln test ARGS` in a directory and checks its exit status,
# stdout and stderr; a failure prints both outputs.
#
# usage: test_runner.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 cases=0

# ---------------------------------------------------------------- helpers

# put FILE TEXT: writes TEXT (printf %b escapes) to $tmp/FILE, creating dirs.
put() {
  mkdir -p "$(dirname "$tmp/$1")"
  printf '%b' "$2" >"$tmp/$1"
}

# run LABEL WANT_STATUS DIR ARGS...: runs `kiln test ARGS` in $tmp/DIR.
run() {
  label=$1 want=$2 dir=$3
  shift 3
  cases=$((cases + 1))
  (cd "$tmp/$dir" && "$KILN" test "$@") >"$tmp/stdout" 2>"$tmp/stderr"
  status=$?
  out=$(cat "$tmp/stdout")
  err=$(cat "$tmp/stderr")
  [ "$status" = "$want" ] || fail "exit status $status, expected $want"
}

fail() {
  failures=$((failures + 1))
  echo "FAIL [$label] $1"
  echo "  --- stdout:"
  head -c 4000 "$tmp/stdout" | sed 's/^/  | /'
  echo "  --- stderr:"
  head -c 2000 "$tmp/stderr" | sed 's/^/  | /'
}

has() { grep -qF -- "$2" <<<"$1"; }
out_has() { has "$out" "$1" || fail "stdout lacks: $1"; }
out_lacks() { has "$out" "$1" && fail "stdout has: $1"; }
err_has() { has "$err" "$1" || fail "stderr lacks: $1"; }
out_line() { grep -qE -- "$1" <<<"$out" || fail "no stdout line matches: $1"; }
last_line() { [ "$(tail -n 1 <<<"$out")" = "$1" ] || fail "last line is not: $1"; }
no_times() { sed -E 's/ [0-9]+ ms$//' <<<"$out"; }

# ---------------------------------------------------------------- a test tree

put t/a_pass.lisp '(display "a")\n(newline)\n'
put t/a_pass.out 'a\n'
put t/b_scheme.scm '(display "from scheme")\n'
put t/b_scheme.out 'from scheme\n'
put t/c_fail.lisp '(display "actual")\n(newline)\n'
put t/c_fail.out 'expected\n'
put t/d_skip.lisp '; kiln-test: skip waiting for issue 99\n(car 5)\n'
put t/d_skip.out ''
put t/sub/e_stdin.lisp '(display (read-line))\n'
put t/sub/e_stdin.in 'line from e_stdin.in\n'
put t/sub/e_stdin.out 'line from e_stdin.in'
put t/sub/helper.lisp '(display "a helper: no .out, not a test")\n'

run "tree" 1 t .
out_line '^PASS a_pass [0-9]+ ms$'
out_line '^PASS b_scheme [0-9]+ ms$'
out_line '^FAIL c_fail$'
out_line '^SKIP d_skip \(waiting for issue 99\)$'
out_line '^PASS sub/e_stdin [0-9]+ ms$'
out_has '-expected'
out_has '+actual'
out_lacks 'helper'
# the failures by name, then the summary as the last line
[ "$(tail -n 3 <<<"$out")" = "$(printf 'failed:\n  c_fail\n3 passed, 1 failed, 1 skipped')" ] ||
  fail "failure list and summary at the end"

# Names as printed are PATHs again, from the directory they are relative to.
run "name as PATH" 0 t sub/e_stdin b_scheme
[ "$(no_times)" = "$(printf 'PASS sub/e_stdin\nPASS b_scheme\n2 passed, 0 failed')" ] || fail "names run back"
run "name as PATH from outside" 0 . t/sub/e_stdin
out_line '^PASS t/sub/e_stdin [0-9]+ ms$'
run "file as PATH" 0 t ./sub//e_stdin.lisp
out_line '^PASS sub/e_stdin [0-9]+ ms$'
run "no such name" 2 t sub/nothing
err_has 'no such file or directory: sub/nothing'
[ -z "$out" ] || fail "stdout not empty"

# -k, --list
run "-k" 0 t -k sub .
[ "$(no_times)" = "$(printf 'PASS sub/e_stdin\n1 passed, 0 failed')" ] || fail "-k sub runs one test"
run "-kTEXT" 0 t -kscheme .
out_line '^PASS b_scheme'
run "-k matching none" 1 t -k zzz .
err_has "no tests found"
err_has "zzz"
last_line "0 passed, 0 failed"
run "--list" 0 t --list .
[ "$out" = "$(printf 'a_pass\nb_scheme\nc_fail\nd_skip\nsub/e_stdin')" ] || fail "--list names"
run "--list -k" 0 t --list -k _s .
[ "$out" = "$(printf 'b_scheme\nd_skip\nsub/e_stdin')" ] || fail "--list -k names"

# --fail-fast: the same report with any --jobs; the rest is not run
put ff/t1.lisp '(display 1)'
put ff/t1.out '1'
put ff/t2.lisp '(display 2)'
put ff/t2.out 'two'
put ff/t3.lisp '(display 3)'
put ff/t3.out '3'
put ff/t4.lisp '(display 4)'
put ff/t4.out 'four'
run "--fail-fast" 1 ff --fail-fast .
out_line '^PASS t1 '
out_line '^FAIL t2$'
out_lacks 't3'
out_has 'stopped by --fail-fast: 2 tests not run'
last_line "1 passed, 1 failed"
serial=$(no_times)
run "--fail-fast --jobs 3" 1 ff --fail-fast --jobs 3 .
[ "$(no_times)" = "$serial" ] || fail "--jobs 3 changes the --fail-fast report"
run "without --fail-fast" 1 ff .
last_line "2 passed, 2 failed"
[ "$(tail -n 4 <<<"$out")" = "$(printf 'failed:\n  t2\n  t4\n2 passed, 2 failed')" ] || fail "failure list"

# --jobs: the same report, in the same order
run "--jobs 1" 1 t -j 1 .
serial=$(no_times)
run "--jobs 4" 1 t --jobs=4 .
[ "$(no_times)" = "$serial" ] || fail "--jobs 4 changes the report"

# NAME.status
put st/exit3.lisp '(display "bye")\n(exit 3)\n'
put st/exit3.out 'bye'
put st/exit3.status '3\n'
put st/wrong.lisp '(car 5)\n'
put st/wrong.out 'wrong.lisp:1:1: error: car: argument 1 must be a pair, got 5\n'
put st/wrong.status '0'
put st/any.lisp '(exit 7)'
put st/any.out ''
put st/bad.lisp '(exit 0)'
put st/bad.out ''
put st/bad.status 'zero'
run "NAME.status" 1 st .
out_line '^PASS any '
out_line '^PASS exit3 '
out_line '^FAIL wrong$'
out_has 'exit status 1, expected 0'
out_line '^FAIL bad$'
out_has "bad.status must hold an exit status from 0 to 255, got 'zero'"
last_line "2 passed, 2 failed"

# Skipping: all skipped is not a success
put sk/only.lisp ';; kiln-test: skip\n(display 1)'
put sk/only.out ''
run "all skipped" 1 sk .
out_line '^SKIP only$'
last_line "0 passed, 0 failed, 1 skipped"
err_has "no test ran"

# No tests: exit 1 and say so
mkdir -p "$tmp/empty"
put empty/lonely.lisp '(display 1)'
run "no tests" 1 empty .
err_has "no tests found"
last_line "0 passed, 0 failed"
run "--list, no tests" 1 empty --list .
err_has "no tests found"

# A .lisp and a .scm of one name: a test has one script
put both/x.lisp '1'
put both/x.scm '1'
put both/x.out ''
run "ambiguous in a directory" 1 both .
out_has 'both x.lisp and x.scm exist'
run "ambiguous name" 2 both x
err_has 'ambiguous'

# --update: counted as updated, not passed
put up/u.lisp '(display "new")'
put up/u.out 'old'
put up/same.lisp '(display "same")'
put up/same.out 'same'
run "--update" 0 up --update .
out_line '^UPDATE u [0-9]+ ms$'
out_line '^PASS same [0-9]+ ms$'
last_line "1 passed, 0 failed, 1 updated"
[ "$(cat "$tmp/up/u.out")" = "new" ] || fail "u.out not rewritten"
run "after --update" 0 up .
last_line "2 passed, 0 failed"

# Diffs are capped at 200 lines, long lines cut
put big/many.lisp '(do ((i 0 (+ i 1))) ((= i 1000)) (display i) (newline))'
put big/many.out ''
put big/wide.lisp '(display (make-string 100000 #\\x))'
put big/wide.out 'x'
run "capped diff" 1 big .
n=$(sed -n '/^FAIL many/,/^FAIL wide/p' <<<"$out" | grep -cE '^[-+ @]')
[ "$n" -le 203 ] || fail "diff of $n lines"
out_has 'more diff lines not shown (at most 200)'
out_has 'more bytes]'
[ "${#out}" -lt 20000 ] || fail "report of ${#out} bytes"

# 100 MB of output: the child is killed early, the report stays small, and
# what it printed first is kept.
put huge/flood.lisp '(display "first line")\n(newline)\n(define s (make-string 1000 #\\y))\n(let loop ((i 0)) (when (< i 100000) (display s) (newline) (loop (+ i 1))))\n'
put huge/flood.out 'first line\n'
cases=$((cases + 1))
label="100 MB of output"
if [ -x /usr/bin/time ]; then
  (cd "$tmp/huge" && /usr/bin/time -f '%M' -o "$tmp/rss" "$KILN" test .) >"$tmp/stdout" 2>"$tmp/stderr"
  status=$?
  rss=$(tail -n 1 "$tmp/rss")
  # The runner itself (not the child) should stay well under the 100 MB printed.
  # AddressSanitizer's own memory (quarantine, shadow) puts a sanitizer build's
  # runner above any bound that would mean this, so only the plain build checks it.
  # Captured first: under pipefail, `ldd | grep -q` fails when grep quits before ldd
  # has written everything (SIGPIPE), which once took an ASan build for a plain one.
  libs=$(ldd "$KILN" 2>/dev/null || true)
  if ! grep -q libasan <<<"$libs"; then
    [ "$rss" -lt 80000 ] || fail "runner max RSS $rss KB"
  fi
else
  (cd "$tmp/huge" && "$KILN" test .) >"$tmp/stdout" 2>"$tmp/stderr"
  status=$?
fi
out=$(cat "$tmp/stdout") err=$(cat "$tmp/stderr")
[ "$status" = 1 ] || fail "exit status $status, expected 1"
out_has 'killed: output exceeds 8 MB'
out_has ' first line'
[ "${#out}" -lt 100000 ] || fail "report of ${#out} bytes"

# A timeout keeps what the test printed before it (3 s: an ASan build may need over
# 1 s to start and print)
put slow/spin.lisp '(display "started")\n(newline)\n(let loop () (loop))\n'
put slow/spin.out 'started\ndone\n'
run "--timeout" 1 slow --timeout 3 .
out_has 'timed out after 3 s'
out_has ' started'
out_has '-done'

# SIGTERM (or Ctrl-C) to the runner kills the running tests too: they are in
# process groups of their own, which the terminal's signal does not reach.
put stop/orphan_check_spin.lisp '(let loop () (loop))\n'
put stop/orphan_check_spin.out ''
cases=$((cases + 1))
label="SIGTERM to the runner"
(cd "$tmp/stop" && exec "$KILN" test .) >"$tmp/stdout" 2>"$tmp/stderr" &
runner=$!
sleep 1
kill -TERM "$runner"
wait "$runner"
status=$?
out=$(cat "$tmp/stdout") err=$(cat "$tmp/stderr")
[ "$status" = 143 ] || fail "exit status $status, expected 143"
err_has 'interrupted by signal 15'
sleep 0.2
if command -v pgrep >/dev/null 2>&1; then
  for pid in $(pgrep -f orphan_check_spin.lisp); do
    # only the one this script started: it runs in this script's directory
    [ "$(readlink "/proc/$pid/cwd")" = "$tmp/stop" ] || continue
    fail "the test process outlived the runner"
    kill -KILL "$pid"
  done
fi

# --tap
run "--tap" 1 t --tap .
[ "$(head -n 2 <<<"$out")" = "$(printf 'TAP version 13\n1..5')" ] || fail "TAP header and plan"
out_line '^ok 1 - a_pass$'
out_line '^ok 2 - b_scheme$'
out_line '^not ok 3 - c_fail$'
out_line '^ok 4 - d_skip # SKIP waiting for issue 99$'
out_line '^ok 5 - sub/e_stdin$'
out_line '^  ---$'
out_line '^  message: "output differs from c_fail.out"$'
out_line '^    -expected$'
out_line '^  \.\.\.$'
last_line "# 3 passed, 1 failed, 1 skipped"
grep -vE '^(TAP version 13|1\.\.[0-9]+|(not )?ok [0-9]+ - .*|  .*|#.*)$' <<<"$out" >/dev/null &&
  fail "a line that is not TAP"

# --junit, read back as XML
put x/ok.lisp '(display 1)'
put x/ok.out '1'
put "x/odd&<name>.lisp" '(display "<&>\\"")\n(write-char (integer->char 1))\n(write-u8 255 (current-output-port))'
put "x/odd&<name>.out" 'plain\n'
put x/dir/later.lisp '; kiln-test: skip "quoted" & <angled>\n'
put x/dir/later.out ''
run "--junit" 1 x --junit "$tmp/report.xml" .
[ -s "$tmp/report.xml" ] || fail "no JUnit file"
cases=$((cases + 1))
label="JUnit XML"
if command -v python3 >/dev/null 2>&1; then
  python3 - "$tmp/report.xml" >"$tmp/stdout" 2>"$tmp/stderr" <<'EOF' || fail "the JUnit XML is not as expected"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuite", root.tag
assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("3", "1", "1"), root.attrib
assert float(root.get("time")) >= 0
cases = {c.get("name"): c for c in root.findall("testcase")}
assert sorted(cases) == ["dir/later", "odd&<name>", "ok"], sorted(cases)
for c in cases.values():
    assert c.get("classname") and float(c.get("time")) >= 0 and float(c.get("cpu")) >= 0, c.attrib
assert cases["dir/later"].get("classname") == "dir"
assert list(cases["ok"]) == []
skipped = cases["dir/later"].find("skipped")
assert skipped.get("message") == '"quoted" & <angled>', skipped.attrib
failure = cases["odd&<name>"].find("failure")
assert "output differs" in failure.get("message"), failure.attrib
text = failure.text
assert "-plain" in text and '+<&>"' in text, text
assert "\\x01;" in text, text
print("junit ok")
EOF
else
  echo "SKIP [JUnit XML] python3 not found"
fi
run "--junit unwritable" 2 x --junit "$tmp/no/such/dir/r.xml" .
err_has 'cannot write --junit file'

# --help and usage errors
run "--help" 0 . --help
for opt in -k --list --jobs --timeout --fail-fast --update --junit --tap --help NAME.status NAME.in "kiln-test: skip"; do
  out_has "$opt"
done
run "-h" 0 . -h
out_has 'usage: kiln test'
run "unknown option" 2 t --frobnicate .
err_has 'unknown option: --frobnicate'
err_has 'usage: kiln test'
run "no PATH" 2 t
err_has 'no PATH given'
run "--jobs 0" 2 t --jobs 0 .
err_has '--jobs needs a number from 1 to 256'
run "--jobs x" 2 t -j x .
run "--timeout 0" 2 t --timeout 0 .
err_has '--timeout needs a number of seconds'
run "--timeout huge" 2 t --timeout 1e300 .
run "--timeout nan" 2 t --timeout nan .
run "-k without TEXT" 2 t -k
err_has '-k needs a value'
run "--junit without FILE" 2 t --junit
run "--junit=" 2 t --junit= .
run "a non-test file" 2 t c_fail.out
err_has 'not a .lisp or .scm file'

echo "test_runner: $cases cases, $failures failed checks"
[ "$failures" -eq 0 ]

#!/usr/bin/env bash
# A user's golden suite written for Guile (tests/cli/fixtures/guile_suite/: .scm
# files as a Guile user writes them, each .out what `guile -s` printed, Guile
# 3.0.8) must run under `kiln test` unchanged, and its JUnit report must read
# back as XML with the right counts — as is, and on a copy with two failures
# and a skip.
#
# usage: guile_suite.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")
SUITE=$(realpath "$2")/tests/cli/fixtures/guile_suite
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  failures=$((failures + 1))
  echo "FAIL [$label] $1"
  echo "  --- stdout:"
  head -c 4000 "$tmp/stdout" | sed 's/^/  | /'
  echo "  --- stderr:"
  head -c 2000 "$tmp/stderr" | sed 's/^/  | /'
}

# run LABEL WANT_STATUS DIR ARGS...: `kiln test ARGS` in DIR.
run() {
  label=$1 want=$2 dir=$3
  shift 3
  (cd "$dir" && "$KILN" test "$@") >"$tmp/stdout" 2>"$tmp/stderr"
  status=$?
  out=$(cat "$tmp/stdout")
  [ "$status" = "$want" ] || fail "exit status $status, expected $want"
}

# junit_counts LABEL FILE TESTS FAILURES SKIPPED [NAME=OUTCOME...]: the report
# parses, has those counts and one testcase per test (with a time), and each
# named test ended as said (pass, failure or skipped).
junit_counts() {
  label=$1
  shift
  if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP [$label] python3 not found"
    return
  fi
  python3 - "$@" >"$tmp/stdout" 2>"$tmp/stderr" <<'EOF' || fail "the JUnit report is not as expected"
import sys, xml.etree.ElementTree as ET
path, tests, failures, skipped, *outcomes = sys.argv[1:]
root = ET.parse(path).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
assert suites, root.tag
counts = tuple(str(sum(int(s.get(k, "0")) for s in suites)) for k in ("tests", "failures", "skipped"))
assert counts == (tests, failures, skipped), counts
cases = {c.get("name"): c for s in suites for c in s.findall("testcase")}
assert len(cases) == int(tests), sorted(cases)
for c in cases.values():
    assert float(c.get("time")) >= 0, c.attrib
for item in outcomes:
    name, outcome = item.split("=")
    kids = [k.tag for k in cases[name]]
    assert kids == ([] if outcome == "pass" else [outcome]), (name, kids)
    if outcome == "failure":
        assert cases[name].find("failure").get("message"), name
print("junit ok")
EOF
}

names="assoc_lists basics exit_status formatting let_values named_let stdin_lines string_ports"

# ---- the suite as the user wrote it
before=$(cd "$SUITE" && cat ./* | cksum)
run "suite unchanged" 0 "$SUITE" --junit "$tmp/suite.xml" .
for n in $names; do
  grep -qE "^PASS $n [0-9]+ ms$" <<<"$out" || fail "no PASS line for $n"
done
[ "$(tail -n 1 <<<"$out")" = "8 passed, 0 failed" ] || fail "summary"
[ "$(cd "$SUITE" && cat ./* | cksum)" = "$before" ] || fail "running the suite changed its files"
junit_counts "suite JUnit" "$tmp/suite.xml" 8 0 0 basics=pass stdin_lines=pass exit_status=pass

# A test named as the runner prints it, from the suite's own directory.
run "one test by name" 0 "$SUITE" stdin_lines
[ "$(tail -n 1 <<<"$out")" = "1 passed, 0 failed" ] || fail "summary"

# ---- a copy with a wrong expectation, a wrong exit status and a skip
cp -r "$SUITE" "$tmp/copy"
sed -i 's/^144$/145/' "$tmp/copy/basics.out"
echo 0 >"$tmp/copy/exit_status.status"
sed -i '1i ; kiln-test: skip rewriting the loops' "$tmp/copy/named_let.scm"
run "copy with failures" 1 "$tmp/copy" --junit "$tmp/copy.xml" .
grep -qx 'FAIL basics' <<<"$out" || fail "basics should fail"
grep -qx 'FAIL exit_status' <<<"$out" || fail "exit_status should fail"
grep -qx 'SKIP named_let (rewriting the loops)' <<<"$out" || fail "named_let should be skipped"
grep -qx -- '-145' <<<"$out" && grep -qx -- '+144' <<<"$out" || fail "the diff of basics"
[ "$(tail -n 4 <<<"$out")" = "$(printf 'failed:\n  basics\n  exit_status\n5 passed, 2 failed, 1 skipped')" ] ||
  fail "failure list and summary"
junit_counts "copy JUnit" "$tmp/copy.xml" 8 2 1 basics=failure exit_status=failure named_let=skipped \
  formatting=pass

echo "guile_suite: $failures failed checks"
[ "$failures" -eq 0 ]

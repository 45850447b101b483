#!/usr/bin/env bash
# Every ```scheme block of docs/training.md's tutorial appears verbatim in the golden
# test that runs it (tests/golden/training/end_to_end.lisp).
# usage: tutorial_snippets.sh REPO_DIR
exec python3 - "$1" <<'PY'
import re, sys
root = sys.argv[1]
doc = open(f"{root}/docs/training.md").read()
test = open(f"{root}/tests/golden/training/end_to_end.lisp").read()
section = doc.split("## Tutorial", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"```scheme\n(.*?)\n```", section, re.S)
bad = [b for b in blocks if b not in test]
for b in bad:
    print("docs/training.md: snippet not in end_to_end.lisp:\n" + b[:300])
if not blocks:
    print("docs/training.md: no tutorial snippets found")
    sys.exit(1)
print(f"{len(blocks)} snippets, {len(bad)} missing")
sys.exit(1 if bad else 0)
PY

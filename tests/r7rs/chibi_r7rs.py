#!/usr/bin/env python3
"""Runs chibi-scheme's R7RS conformance tests (tests/r7rs-tests.scm, public, not part
of this repository) through Kiln and counts what passes.

    tests/r7rs/chibi_r7rs.py KILN PATH/TO/r7rs-tests.scm [--failures FILE] [--with-imports]

The file's `(import ...)` is skipped and its test forms (`test`, `test-values`,
`test-error`, `test-assert`, `test-begin`/`test-end`) are defined here in portable
Scheme. With --with-imports the file's `(import ...)` runs instead, and the test forms
come from a `(chibi test)` library this script writes as `chibi/test.sld` next to the
driver, so the run also exercises libraries, exported macros and the standard
`(scheme ...)` libraries. Each top-level form is read from a string port and evaluated inside a guard,
so a form Kiln cannot read or evaluate costs the tests inside it and nothing else.
A form counts the tests it would run if all passed, as chibi-scheme's own runner counts
them (1225 for the file): each test call, and for each use of one of the file's own test
macros, the test calls its template holds. A form that ran fewer (its code skipped some
after a failure) counts the rest as failed.
A test passes when its value is `equal?` to the expected one, or, for two inexact
reals, when they agree to 1e-7 relative, and for complex numbers when both parts
do (as chibi's own runner does).

Prints one line per section and the totals; with --failures, writes each failing
test's source line, expression and what Kiln gave.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def split_forms(text):
    """Top-level forms of `text` as (line, source) pairs, skipping comments."""
    forms, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif c == ";":
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("#|", i):
            end = skip_block_comment(text, i)
            line += text.count("\n", i, end)
            i = end
        else:
            start, start_line = i, line
            i = skip_datum(text, i)
            src = text[start:i]
            line = start_line + src.count("\n")
            forms.append((start_line, src))
    return forms


def skip_block_comment(text, i):
    """Index just past the (nested) #| ... |# comment starting at i."""
    depth, i = 1, i + 2
    while i < len(text) and depth:
        if text.startswith("#|", i):
            depth, i = depth + 1, i + 2
        elif text.startswith("|#", i):
            depth, i = depth - 1, i + 2
        else:
            i += 1
    return i


def skip_datum(text, i):
    """Index just past the datum starting at i."""
    n, depth = len(text), 0
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif c == "|":
            i += 1
            while i < n and text[i] != "|":
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif text.startswith("#\\", i):
            i += 3
            while i < n and not text[i].isspace() and text[i] not in "()\"":
                i += 1
        elif c == ";":
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("#|", i):
            i = skip_block_comment(text, i)
        elif c in "([":
            depth += 1
            i += 1
        elif c in ")]":
            depth -= 1
            i += 1
            if depth == 0:
                return i
        elif c.isspace():
            i += 1
            if depth == 0:
                return i
        else:
            i += 1
            if depth == 0 and (i >= n or text[i].isspace() or text[i] in "()\""):
                # a prefix such as ' ` , #u8 continues into the next datum
                if text[i - 1] in "'`," or text[i - 1:i] == "@" and text[i - 2] == ",":
                    continue
                return i
    return i


PRELUDE = r"""
(define %passed 0)
(define %failed 0)
(define %section "R7RS")
(define %line 0)
(define %sections '())
(define (%note-section! ok?)
  (let ((entry (assoc %section %sections)))
    (if entry
        (set-cdr! entry (if ok? (cons (+ 1 (cadr entry)) (cddr entry))
                              (cons (cadr entry) (+ 1 (cddr entry)))))
        (set! %sections (cons (cons %section (if ok? (cons 1 0) (cons 0 1))) %sections)))))
(define (%close? a b)
  (or (equal? a b)
      (and (real? a) (real? b) (inexact? a) (inexact? b)
           (or (and (nan? a) (nan? b))
               (<= (abs (- a b)) (* 1e-7 (max (abs a) (abs b))))))
      (and (number? a) (number? b) (not (and (real? a) (real? b)))
           (%close? (real-part a) (real-part b))
           (%close? (imag-part a) (imag-part b)))))
(define (%report ok? what got)
  (%note-section! ok?)
  (if ok?
      (set! %passed (+ %passed 1))
      (begin
        (set! %failed (+ %failed 1))
        (display "FAIL ") (write %line) (display " ") (write what)
        (display " => ") (write got) (newline))))
(define (%error-text e)
  (if (error-object? e)
      (let ((p (open-output-string)))
        (display (error-object-message e) p)
        (for-each (lambda (x) (display " " p) (write x p)) (error-object-irritants e))
        (string-append "error: " (get-output-string p)))
      (let ((p (open-output-string))) (write e p) (string-append "raised: " (get-output-string p)))))
(define (%check what expected thunk)
  (let ((got (guard (e (#t (list '%error (%error-text e)))) (thunk))))
    (%report (and (not (and (pair? got) (eq? (car got) '%error))) (%close? expected got)) what got)))
(define-syntax test
  (syntax-rules ()
    ((_ name expected expr) (%check 'expr expected (lambda () expr)))
    ((_ expected expr) (%check 'expr expected (lambda () expr)))))
(define-syntax test-assert
  (syntax-rules ()
    ((_ name expr) (%check 'expr #t (lambda () (if expr #t #f))))
    ((_ expr) (%check 'expr #t (lambda () (if expr #t #f))))))
(define-syntax test-values
  (syntax-rules ()
    ((_ expected expr)
     (%check 'expr (call-with-values (lambda () expected) list)
             (lambda () (call-with-values (lambda () expr) list))))))
(define-syntax test-error
  (syntax-rules ()
    ((_ expr)
     (%report (guard (e (#t #t)) expr #f) 'expr "no error"))))
(define (test-begin . name) (if (pair? name) (set! %section (car name))))
(define (test-end . o) #f)
(define (%fail-unrun! line tests why)
  (set! %failed (+ %failed tests))
  (let loop ((k 0)) (when (< k tests) (%note-section! #f) (loop (+ k 1))))
  (display "FORM ") (write line) (display " (") (write tests)
  (display " tests) ") (display why) (newline))
(define (%run line text tests)
  (set! %line line)
  (let ((before (+ %passed %failed)))
    (guard (e (#t (%fail-unrun! line tests (%error-text e))))
      (let* ((port (open-input-string text)) (form (read port)))
        (eval form (interaction-environment))
        ;; A form whose own code skips tests after a failure (as test-precision's
        ;; `when` does) ran fewer than it holds: chibi, passing them all, counts them.
        (let ((ran (- (+ %passed %failed) before)))
          (when (< ran tests)
            (%fail-unrun! line (- tests ran) "not run after an earlier failure in the form")))))))
"""

SUMMARY = r"""
(define (%summary)
  (for-each (lambda (s) (display "SECTION ") (write (car s)) (display " ")
              (write (cadr s)) (display " ") (write (cddr s)) (newline))
            (reverse %sections))
  (display "TOTAL ") (write %passed) (display " ") (write %failed) (newline))
"""

# The (chibi test) library of --with-imports: the same definitions, exported.
LIBRARY = ("(define-library (chibi test)\n"
           "  (export test test-assert test-values test-error test-begin test-end %run %summary)\n"
           "  (import (scheme base) (scheme write) (scheme read) (scheme eval) (scheme repl)\n"
           "          (scheme inexact))\n"
           "  (begin\n" + PRELUDE + SUMMARY + "))\n")

# The test forms the prelude defines; the file's own test macros (test-numeric-syntax,
# test-precision, ...) are weighed by the test forms their templates hold.
TEST_CALL = re.compile(r"\((test|test-values|test-error|test-assert)[\s)]")
MACRO_DEF = re.compile(r"\(define-syntax\s+([^\s()]+)")


def test_macros(forms):
    """{name: tests one use runs} for the file's define-syntax forms whose templates hold tests."""
    weights = {}
    for _, src in forms:
        m = MACRO_DEF.match(src)
        if m and TEST_CALL.search(src):
            weights[m.group(1)] = len(TEST_CALL.findall(src))
    return weights


def count_tests(src, weights):
    """How many tests the form `src` runs when everything in it passes."""
    n = len(TEST_CALL.findall(src))
    for name, w in weights.items():
        n += w * len(re.findall(r"\(" + re.escape(name) + r"[\s)]", src))
    return n


def scheme_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kiln")
    ap.add_argument("tests", help="path to chibi-scheme's tests/r7rs-tests.scm")
    ap.add_argument("--failures", help="write the failing tests here")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--with-imports", action="store_true",
                    help="run the file's import, with the test forms from a (chibi test) library")
    args = ap.parse_args()
    text = open(args.tests, encoding="utf-8").read()
    all_forms = split_forms(text)
    forms = [(l, s) for l, s in all_forms if not s.startswith("(import")]
    if args.with_imports:
        parts = [s for l, s in all_forms if s.startswith("(import")]
    else:
        parts = [PRELUDE + SUMMARY]
    weights = test_macros(forms)
    for line, src in forms:
        tests = count_tests(src, weights)
        if re.match(r"\(define(-syntax)? \(?test", src):
            tests = 0  # a helper's definition, not a test
        if re.match(r"\(test-(begin|end)", src):
            tests = 0
        parts.append(f"(%run {line} {scheme_string(src)} {tests})")
    parts.append("(%summary)")
    with tempfile.TemporaryDirectory() as tmp:
        if args.with_imports:
            os.mkdir(os.path.join(tmp, "chibi"))
            with open(os.path.join(tmp, "chibi", "test.sld"), "w", encoding="utf-8") as f:
                f.write(LIBRARY)
        driver = os.path.join(tmp, "r7rs-driver.scm")
        with open(driver, "w", encoding="utf-8") as f:
            f.write("\n".join(parts))
        try:
            proc = subprocess.run([os.path.abspath(args.kiln), driver], capture_output=True, text=True, errors="replace",
                                  timeout=args.timeout, cwd=tmp, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            print("chibi_r7rs: kiln did not finish in", args.timeout, "s")
            return 1
    out = proc.stdout
    fails = [l for l in out.splitlines() if l.startswith(("FAIL ", "FORM "))]
    for l in out.splitlines():
        if l.startswith("SECTION "):
            m = re.match(r'SECTION "(.*)" (\d+) (\d+)', l)
            if m:
                print(f"{m.group(1):40s} {m.group(2):>5s} passed {m.group(3):>5s} failed")
    total = re.search(r"TOTAL (\d+) (\d+)", out)
    if args.failures:
        with open(args.failures, "w", encoding="utf-8") as f:
            f.write("\n".join(fails) + "\n")
    if not total:
        print("chibi_r7rs: the run did not finish (exit status", proc.returncode, ")")
        print(proc.stderr[-2000:])
        return 1
    passed, failed = int(total.group(1)), int(total.group(2))
    print(f"total: {passed} passed, {failed} failed of {passed + failed}")
    if proc.stderr.strip():
        print("stderr:", proc.stderr.strip()[-1000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())

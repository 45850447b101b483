#!/usr/bin/env python3
"""Crash fuzzer: kiln must survive mutated, generated and hostile programs.

usage: crash_fuzz.py KILN REPO [--seed S] [--count N | --minutes M] [--jobs J]
                     [--timeout T] [--golden-report FILE]
                     [--save DIR] [--skip NAME,...] [--only KIND]

Builds programs with a fixed seed (the same seed gives the same programs):

  * text mutations of the golden tests (tests/golden/**/*.lisp) and of a list of
    error-provoking snippets: truncated at a random byte, bytes or brackets deleted,
    duplicated, swapped or changed, snippets inserted, slices of other programs
    spliced in, or plain token soup (what tests/robustness/fuzz.py did);
  * S-expression mutations of the golden tests: a datum replaced by a hostile value
    (2^62, 2^63-1, -1, 1e308, +inf.0, +nan.0, -0.0, huge strings, lists and vectors, a
    circular list, a 100 000 deep list, wrong types), deleted, duplicated, swapped,
    wrapped in a builtin call or nested deep, a symbol or a call's head replaced by
    another builtin, a datum of another test spliced in;
  * calls of every global builtin (the names come from kiln itself, through the
    REPL's ,apropos; arities from the defbuiltin registrations in the sources) with
    random arguments from the same hostile pool, each call in its own try-catch;
  * deep nesting: brackets, quotes, vectors, begin/if/lambda/list/quasiquote, up to
    a million levels;
  * damaged data files: programs that write .npy, CSV and gzip-compressed CSV files,
    .npz archives (stored and deflated) and model files (versions 1 to 3) (the
    committed test data of tests/data/ and generated ones: every dtype, order, format
    version, odd shapes, random trees of tensors) truncated, with bits flipped, bytes
    changed, header fields, lengths, versions, zip fields and model header numbers
    edited (the model header's length and checksum then made right again, so the
    parser sees the edit), then read them with load-npy, read-csv and read-table
    (with random 'delimiter and 'columns), load-npz and load-model.

Each program runs as `kiln CASE.lisp` (stdin /dev/null, a scratch cwd, --timeout s)
and fails when it is killed by a signal, prints a sanitizer report, exits with a status other than 0 or 1
(or 1 without an "error:" message), or does not stop within 10 s of SIGINT after the
timeout (a program still running at the timeout that stops with "interrupted" on
SIGINT is fine: it may loop forever in Lisp). The golden files mutated are those whose
unmodified run takes at most --timeout/10 CPU seconds, timed by --golden-report (a
JUnit report of `kiln test`, which CTest's golden test writes) or else run here. Programs with the
word "exit" are skipped ((exit n) may give any status); so are calls of delete-file.
A huge integer given to a builtin that allocates that many things (make-list, iota,
make-vector, full, ...) goes into a program of its own, so that slowness there is
attributed precisely and never hides other calls.

A failing program is minimised (top-level forms, then arguments and datums, then
lines and characters, while the failure keeps its kind) and saved to --save (default
./crash-fuzz-failures) with the original beside it. Exit status 1 if any failed.

Environment defaults (used by CTest and `make asan`): KILN_FUZZ_CASES (--count),
KILN_FUZZ_SEED, KILN_FUZZ_JOBS, KILN_FUZZ_TIMEOUT, KILN_FUZZ_GOLDEN_REPORT,
KILN_FUZZ_SAVE.
"""
import argparse
import concurrent.futures
import gzip
import io
import os
import random
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
import xml.etree.ElementTree as ET
from pathlib import Path

# Snippets that reach error paths directly; also the insertable tokens.
TOKENS = [
    "(", ")", "[", "]", "\"", "'", "`", ",", ",@", "#(", "#\\", "#|", "|#", "#;", ".", "...",
    "#t", "#f", "#true", "0", "-1", "1.5e308", "-0.0", "+nan.0", "+inf.0", "1e999", ".5.",
    "9223372036854775807", "-9223372036854775808", "99999999999999999999", "#\\x41", "#\\nul",
    "\"\\x41;\"", "\"\\q\"", "\"\\x;\"", "|odd sym|", "#x", "#\\xZZ", "'()", "()", "[)", "(]",
    "(car '())", "(cdr 5)", "(vector-ref #(1) 5)", "(string-ref \"\" 0)", "(substring \"abc\" 2 1)",
    "(tensor '((1 2) (3)))", "(zeros '(0))", "(reshape (arange 6) '(4 -1))",
    "(matmul (ones '(2 3)) (ones '(2 3)))", "(tensor-add (ones '(2 3)) (ones '(4 3)))",
    "(graph-grad (lambda (x) (tensor-sum x)) (ones '(2 2)))", "(graph-ir (lambda (x) (* x x)))",
    "(lambda)", "(lambda x)", "(define)", "(define 5 6)", "(let ((x)) x)", "(let loop)",
    "(quote)", "(if)", "(set! undefined-var 1)", "(apply + 1)", "(apply + 1 '(2 . 3))",
    "(call/cc call/cc)", "(raise 'oops)", "(error \"boom\" 1 2)", "(raise-continuable 1)",
    "(define-syntax m (syntax-rules () ((_ x ...) (x ...))))", "(m)", "(m 1 2)",
    "(begin)", "(cond)", "(case)", "(do)", "(guard)", "(guard (e) (raise 1))",
    "(with-exception-handler (lambda (e) 0) (lambda () (raise 'x)))",
    "(dynamic-wind 1 2 3)", "(values)", "(call-with-values values)", "(string->symbol 5)",
    "(make-vector -1)", "(make-string -1)", "(list-tail '(1) 5)", "(expt 0 -1)", "(/ 1 0)",
    "(* 4611686018427387904 4)", "(+ 9223372036854775807 1)", "(exact +inf.0)", "(exact +nan.0)",
    "(integer->char -1)", "(integer->char 99999999)", "(number->string 1 1)",
    "(load \"no-such-file.lisp\")", "(open-input-file \"no-such-file\")",
    "(read (open-input-string \"(1 . )\"))", "(read (open-input-string \"#(1 . 2)\"))",
    "(eval '(car))", "(define (g n) (+ 1 (g n))) (g 0)",
    "(hash-table-ref (make-hash-table) 1)", "(sort '(3 1 2) 5)", "(string-append \"a\" 'b)",
    "(format \"~q\" 1)", "(format \"~a\")", "(vector-fill! #(1 2) 0)", "(list->string '(1))",
    "(save-model \"/nonexistent-dir/x\" 1)", "(load-model \"no-such-model\")",
    "(tensor-slice (ones '(3)) 0 2 1)", "(transpose (ones '(2 3)) '(0 0))", "(concat '() 0)",
    "(graph-compile (lambda (x) (tensor-exp x)) (ones '(2)))",
    "(graph-compile-grad (lambda (x) (tensor-sum (tensor-mul x x))) (ones '(3)))",
    # SPEC §15: loops, eager, traced, batched and differentiated
    "(fori-loop 3 (lambda (i c) (list c)) 1.0)", "(scan (lambda (c x) c) 0.0 (ones '(3)))",
    "(while-loop (lambda (c) (< c 3.0)) (lambda (c) (ones '(2))) 0.0)",
    "(graph-grad (lambda (x) (while-loop (lambda (c) (< c 3.0)) (lambda (c) (+ c x)) 0.0)) 1.0)",
    "((vmap (lambda (x) (fori-loop 3 (lambda (i c) (tensor-mul c x)) x))) (ones '(2 3)))",
    "((vmap (lambda (x) (while-loop (lambda (c) (tensor-lt c x)) (lambda (c) (+ c 1.0)) (tensor 0.0)))) (tensor '(1.0 3.0)))",
    "((jit (vmap (grad (lambda (h xs) (tensor-sum (car (scan (lambda (c x) (cons (tensor-tanh (tensor-add c x)) c)) h xs))))) '(0 0))) (ones '(2 3)) (ones '(2 4 3)))",
    "((vmap (lambda (x) (car (scan (lambda (c y) (cons (tensor-add c y) (tensor-rand '(2) (tensor-sum c)))) x (ones '(3 2)))))) (ones '(4 2)))",
]

# Hostile argument values (Lisp source). The names defined in PRELUDE are cheap to
# refer to many times.
HUGE_INTS = ["4611686018427387904", "9223372036854775807", "-9223372036854775808",
             "4611686018427387903", "2147483648", "4294967296", "4294967295",
             "9007199254740993", "2305843009213693951", "1152921504606846976",
             "(expt 2 64)", "(- (expt 2 100))", "big-int"]
SMALL_INTS = ["0", "1", "-1", "2", "3", "7", "-7", "255", "256", "1114111", "1114112", "55296",
              "65536", "2147483647", "-2147483648"]
FLOATS = ["0.0", "-0.0", "0.5", "-1.5", "1e308", "-1e308", "+inf.0", "-inf.0", "+nan.0",
          "5e-324", "1e-300", "2.5", "1e18", "-1e19"]
OTHERS = ["#t", "#f", "'()", "'sym", "\"\"", "\"abc\"", "\"a\\x0;b\"", "#\\a", "#\\nul",
          "'(1 2 3)", "'(1 . 2)", "'(a (b (c)))", "#(1 2 3)", "#()",
          "(tensor '(1.0 2.0))", "(tensor 2.0)", "(zeros '(2 3))", "(ones '(1))",
          "(tensor '((1.0 +nan.0) (+inf.0 -0.0)))", "car", "+", "(lambda (x) x)",
          "(lambda args args)", "(lambda (a b) (< a b))", "(make-hash-table)",
          "(open-input-string \"(1 2\")", "(open-input-string \"\")", "(current-output-port)",
          "(delay 1)", "(list 1 (vector 2 \"x\"))", "'(2 3)", "'(-1)", "'(0)",
          "'(4611686018427387904 4)", "'(1 1 1 1 1 1 1 1 1)", "'(2 -1 -1)", "(string->symbol \"\")",
          "(vector 'a \"b\" #\\c)", "(make-parameter 1)", "(cons 1 2)",
          "(lambda () (raise 'inner))", "(call/cc (lambda (k) k))",
          "1/3", "-7/2", "big-int", "big-ratio", "\"λ∀x\"", "#\\λ", "#\\x10FFFF",
          "#u8(1 2 255)", "(make-bytevector 3 0)", "(bytevector)"]
# Arguments of the types a builtin's name suggests, so that calls get past the first
# type check into the code that does the work.
FAMILIES = {
    # SPEC §15: fori-loop, scan, while-loop and vmap (bodies that fit and ones that do not)
    "loop": ["(lambda (i c) (* c 2.0))", "(lambda (i c) (list c))", "(lambda (c x) (cons (+ c x) c))",
             "(lambda (c x) c)", "(lambda (c) (< c 10.0))", "(lambda (c) (+ c 1.0))", "(lambda (c) (tensor-lt c 3.0))",
             "(lambda (x) (fori-loop 3 (lambda (i c) (tensor-tanh c)) x))",
             "(lambda (x) (car (scan (lambda (c y) (cons (+ c y) c)) 0.0 x)))",
             "(lambda (x) (while-loop (lambda (c) (< (tensor-sum c) 5.0)) (lambda (c) (tensor-add c 1.0)) x))",
             "(ones '(3 2))", "(tensor '(1.0 2.0))", "(tensor 0.5)", "1.0", "0", "3", "-1", "10000",
             "4611686018427387904", "'()", "(list 1.0 (ones '(2)))", "'(0 #f)", "'(#f #f)", "big-tensor",
             "+nan.0", "(ones '(1 1 1 1 1 1 1 1))"],
    "tensor": ["(tensor '(1.0 2.0 3.0))", "(tensor 2.0)", "(zeros '(2 3))", "(ones '(3 2))",
               "(tensor '((1.0 +nan.0) (+inf.0 -0.0)))", "big-tensor", "(ones '(1 1 1 1 1 1 1 1))",
               "(tensor-randn '(4 4) 1)", "(arange 6)", "'(2 3)", "'(-1)", "0", "1", "-1", "2",
               "'(4611686018427387904 4)", "(lambda (x) (* x 2.0))", "(list (ones '(2)) (zeros '(3)))",
               "'(1 1 1 1 1 1 1 1 1)", "(reshape (arange 24) '(2 3 4))"],
    "graph": ["(lambda (x) (tensor-sum (tensor-exp x)))", "(lambda (x y) (tensor-sum (matmul x y)))",
              "(lambda (x) (if (< x 0.0) x (* x x)))", "(lambda (x) (tensor-sum (concat (list x x) 0)))",
              "(lambda (x) (tensor-slice x 0 0 1))", "(lambda args (car args))", "(lambda (x) x)",
              "(lambda (x) (graph-grad (lambda (y) y) x))", "(lambda (x) (tensor-max x 0 #t))",
              "(ones '(2 3))", "(ones '(3 2))", "(tensor 1.0)", "1.0", "+nan.0", "big-tensor",
              "(ones '(1 1 1 1 1 1 1 1))", "'grad", "(zeros '(300 300))"],
    # SPEC §14: convolutions, pooling, the model library (N x C x H x W and N x C x L
    # operands that fit, and ones that do not), random keys
    "model": ["(ones '(1 2 5 5))", "(tensor-randn '(2 3 4 4) 3)", "(ones '(2 3 1 1))", "(ones '(4 2 3 3))",
              "(ones '(1 1 1))", "(tensor-randn '(2 2 7) 1)", "(ones '(3 2 2))", "(ones '(2 3))", "(tensor 2.0)",
              "(ones '(2 4 8))", "(causal-mask 4)", "(ones '(4 4))", "1", "2", "0", "-1", "'(2 1)", "'(0 3)",
              "'(1 2 3)", "4611686018427387904", "1e-5", "+nan.0", "0.5", "1.0", "(zeros '(0 2 3 3))",
              "(random-split 7 3)", "(car (random-split 5 2))", "'(2 3 4)", "big-tensor"],
    "tree": ["'((w . 1.0) (b . 2.0))", "(list (cons 'w (ones '(2 2))) (cons 'b (zeros '(2))))",
             "(list (list (cons 'a 1.0)) (vector (ones '(2)) 3.0))", "'((w . x) (b . ()))", "'(w b)", "'w", "'b",
             "0", "1", "-1", "(list 1.0 (ones '(3)))", "'((w . 1.0) . 2)", "circ", "deep-list", "big-list",
             "(lambda (acc x) (+ acc x))", "(lambda (x) x)", "0.0", "1e308", "+nan.0", "(make-hash-table)"],
    "string": ["\"\"", "\"abc\"", "big-str", "wide-str", "#\\a", "0", "1", "-1", "3", "100000",
               "2147483648", "(lambda (c) c)", "'(#\\a #\\b)", "\"~a ~s ~%\"", "\"λ∀ß\"",
               "uni-str", "#\\λ", "\"ÀB\""],
    "char": ["#\\a", "#\\nul", "#\\xFF", "#\\space", "0", "255", "256", "-1", "#\\λ", "#\\x10FFFF",
             "#\\xDF", "#\\x3A3", "1114111", "1114112", "55296"],
    "vector": ["#(1 2 3)", "#()", "big-vec", "circ-vec", "0", "1", "-1", "3", "100000", "(lambda (x) x)",
               "(lambda (a b) (< a b))", "'(1 2)"],
    "list": ["'(1 2 3)", "'()", "big-list", "circ", "deep-list", "'(1 . 2)", "0", "1", "-1", "3",
             "(lambda (x) x)", "(lambda (a b) (< a b))", "(lambda (a . r) a)", "'((1 . 2) (3 . 4))"],
    "hash": ["(make-hash-table)", "(let ((h (make-hash-table))) (hash-table-set! h 1 2) h)", "1", "'k",
             "(lambda (k v) k)", "(lambda () 0)", "big-list", "circ"],
    "number": ["0", "1", "-1", "0.0", "-0.0", "+nan.0", "+inf.0", "-inf.0", "1e308", "5e-324",
               "9223372036854775807", "-9223372036854775808", "4611686018427387904", "2", "10", "36", "37",
               "\"1e400\"", "\"#x-8000000000000000\"", "\"99999999999999999999\"", "\"-0.0\"",
               "1/3", "-7/2", "(expt 10 400)", "(- (expt 2 64))", "big-int", "big-ratio", "#e1.5",
               "(/ 1 (expt 3 200))", "\"1/0\"", "\"#e1e400\"", "\"#e-1.5e-400\"", "1e-320"],
    "bytevector": ["#u8()", "#u8(1 2 255)", "(make-bytevector 100000 7)", "0", "1", "-1", "3", "255",
                   "256", "100000", "\"λ∀\"", "(open-input-bytevector #u8(1 2 3))",
                   "(open-output-bytevector)", "big-int"],
    "port": ["(open-input-string \"(1 2) #(3) \\\"x\\\"\")", "(open-output-string)", "(current-output-port)",
             "(open-input-string \"\")", "#\\a", "\"abc\"", "0", "big-str"],
}
FAMILY_OF = [("loop", "fori-loop"), ("loop", "scan"), ("loop", "while-loop"), ("loop", "vmap"), ("model", "conv"), ("model", "matmul"), ("model", "pool"), ("model", "attention"), ("model", "layer-norm"),
             ("model", "linear"), ("model", "causal"), ("model", "dropout"), ("model", "random"),
             ("model", "tensor-rand"), ("model", "gelu"), ("model", "tensor-var"), ("model", "tensor-min"),
             ("model", "tensor-eq"), ("model", "tensor-lt"), ("model", "tensor-le"), ("model", "tensor-gt"),
             ("model", "tensor-ge"), ("tree", "tree"), ("tree", "global-norm"), ("tree", "adamw"),
             ("tree", "schedule"), ("bytevector", "bytevector"), ("bytevector", "u8"), ("bytevector", "utf8"),
             ("graph", "graph-"), ("graph", "kernel"), ("tensor", "tensor"), ("tensor", "matmul"),
             ("tensor", "transpose"), ("tensor", "reshape"), ("tensor", "concat"), ("tensor", "zeros"),
             ("tensor", "ones"), ("tensor", "full"), ("tensor", "arange"), ("tensor", "relu"),
             ("tensor", "model"), ("hash", "hash"), ("string", "string"), ("string", "substring"),
             ("string", "symbol"), ("string", "format"), ("char", "char"), ("vector", "vector"),
             ("port", "port"), ("port", "read"), ("port", "write"), ("port", "display"),
             ("list", "list"), ("list", "assoc"), ("list", "member"), ("list", "append"),
             ("list", "reverse"), ("list", "map"), ("list", "fold"), ("list", "filter"),
             ("list", "sort"), ("list", "apply"), ("list", "car"), ("list", "cdr"), ("list", "iota"),
             ("number", "number"), ("number", "exact"), ("number", "expt"), ("number", "quotient"),
             ("number", "modulo"), ("number", "remainder"), ("number", "gcd"), ("number", "lcm"),
             ("number", "floor"), ("number", "round"), ("number", "sqrt"), ("number", "integer"),
             ("number", "bit"), ("number", "numerator"), ("number", "denominator"),
             ("number", "rational"), ("number", "truncate"), ("number", "ceiling"), ("number", "square"),
             ("number", "exact-integer")]


def family(name):
    for fam, part in FAMILY_OF:
        if part in name:
            return FAMILIES[fam]
    return None


BIG = ["big-str", "big-list", "big-vec", "deep-list", "circ", "circ-vec", "big-tensor",
       "wide-str", "uni-str", "big-int", "big-ratio"]
PRELUDE = """(define big-str (make-string 100000 #\\a))
(define wide-str (make-string 1000 #\\xFF))
(define uni-str (make-string 1000 #\\x10FFFF))
(define big-int (expt 7 20000))
(define big-ratio (/ big-int (+ big-int 1)))
(define big-list (iota 100000))
(define big-vec (make-vector 100000 1.5))
(define big-tensor (zeros '(300 300)))
(define deep-list (let loop ((i 0) (acc '())) (if (= i 100000) acc (loop (+ i 1) (list acc)))))
(define circ (let ((l (list 1 2 3))) (set-cdr! (cddr l) l) l))
(define circ-vec (let ((v (vector 1 2))) (vector-set! v 0 v) v))
"""

# Builtins that allocate or loop over as many things as an integer argument says. A
# huge integer given to one of them gets a program of its own (see the docstring).
SIZE_BUILTINS = {"make-list", "iota", "range", "make-vector", "make-string", "vector-grow",
                 "full", "zeros", "ones", "arange", "tensor-rand", "tensor-randn", "random-split", "causal-mask",
                 "list-tabulate", "make-bytevector", "string-pad", "string-pad-left",
                 "string-pad-right", "vector-resize", "make-initialized-vector",
                 "build-list", "list-tail", "expt", "exact-nonnegative-integer?",
                 "random-permutation", "he-normal", "glorot-uniform", "%one-hot", "minibatches"}
# Never generated: (exit n) and (emergency-exit n) may give any status; delete-file
# would delete the test's own files.
NEVER_CALL = {"exit", "emergency-exit", "delete-file"}

MUTATIONS = ["truncate", "delete_byte", "duplicate_byte", "swap_bytes", "delete_bracket",
             "duplicate_bracket", "flip_bracket", "insert_token", "splice", "delete_range"]
BRACKETS = b"()[]\""
SANITIZER_MARKS = (b"AddressSanitizer", b"LeakSanitizer", b"runtime error:", b"UndefinedBehaviorSanitizer")


# ---------------------------------------------------------------------------
# Text mutation (as the former tests/robustness/fuzz.py)
# ---------------------------------------------------------------------------

def mutate_text(rng, text, corpus):
    """Applies 1-4 random mutations to the bytes `text`."""
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(MUTATIONS)
        n = len(text)
        pos = rng.randrange(n + 1)
        if kind == "truncate" and n:
            text = text[:rng.randrange(n)]
        elif kind == "delete_byte" and n:
            pos = rng.randrange(n)
            text = text[:pos] + text[pos + 1:]
        elif kind == "duplicate_byte" and n:
            pos = rng.randrange(n)
            text = text[:pos + 1] + text[pos:]
        elif kind == "swap_bytes" and n > 1:
            pos = rng.randrange(n - 1)
            text = text[:pos] + text[pos + 1:pos + 2] + text[pos:pos + 1] + text[pos + 2:]
        elif kind in ("delete_bracket", "duplicate_bracket", "flip_bracket"):
            spots = [i for i, c in enumerate(text) if c in BRACKETS]
            if not spots:
                continue
            i = rng.choice(spots)
            if kind == "delete_bracket":
                text = text[:i] + text[i + 1:]
            elif kind == "duplicate_bracket":
                text = text[:i + 1] + text[i:]
            else:
                text = text[:i] + bytes([rng.choice(BRACKETS)]) + text[i + 1:]
        elif kind == "insert_token":
            token = rng.choice(TOKENS).encode()
            text = text[:pos] + b" " + token + b" " + text[pos:]
        elif kind == "splice" and corpus:
            other = rng.choice(corpus)
            a = rng.randrange(len(other) + 1)
            b = min(len(other), a + rng.randint(1, 200))
            text = text[:pos] + other[a:b] + text[pos:]
        elif kind == "delete_range" and n:
            a = rng.randrange(n)
            text = text[:a] + text[a + rng.randint(1, 40):]
    return text


def token_soup(rng):
    return " ".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 30))).encode()


# ---------------------------------------------------------------------------
# S-expressions: a reader that keeps each atom's text, and a printer
# ---------------------------------------------------------------------------

TOKEN_RE = re.compile(rb"""
    (?P<ws>\s+|;[^\n]*|\#\|(?:.|\n)*?\|\#)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<char>\#\\(?:x[0-9A-Fa-f]+|[A-Za-z]+|.))
  | (?P<open>\#\(|\(|\[)
  | (?P<close>\)|\])
  | (?P<prefix>,@|'|`|,|\#;)
  | (?P<sym>\|[^|]*\|)
  | (?P<atom>[^\s()\[\]";'`,]+)
""", re.VERBOSE | re.DOTALL)


class SexpError(Exception):
    pass


def read_sexps(text):
    """bytes -> list of data; a datum is bytes (an atom), ('list', open, [items]) or
    ('pre', prefix, datum)."""
    pos = 0
    stack = [[]]
    opens = []
    pending = [[]]  # prefixes waiting for their datum, per level
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise SexpError(pos)
        pos = m.end()
        kind = m.lastgroup
        tok = m.group(0)
        if kind == "ws":
            continue
        if kind == "prefix":
            pending[-1].append(tok)
            continue
        if kind == "open":
            stack.append([])
            opens.append(tok)
            pending.append([])
            continue
        if kind == "close":
            if len(stack) == 1 or pending[-1]:
                raise SexpError(pos)
            items = stack.pop()
            pending.pop()
            datum = ("list", opens.pop(), items)
        else:
            datum = tok
        while pending[-1]:
            datum = ("pre", pending[-1].pop(), datum)
        stack[-1].append(datum)
    if len(stack) != 1 or pending[-1]:
        raise SexpError(pos)
    return stack[0]


def write_sexp(d, out):
    if isinstance(d, bytes):
        out.append(d)
    elif d[0] == "pre":
        out.append(d[1])
        write_sexp(d[2], out)
    else:
        out.append(d[1])
        for i, item in enumerate(d[2]):
            if i:
                out.append(b" ")
            write_sexp(item, out)
        out.append(b"]" if d[1] == b"[" else b")")


def print_sexps(data):
    out = []
    for d in data:
        write_sexp(d, out)
        out.append(b"\n")
    return b"".join(out)


def positions(data):
    """Every (container list, index) of the data, in pre-order."""
    out = []

    def rec(lst):
        for i, d in enumerate(lst):
            out.append((lst, i))
            inner = d
            while isinstance(inner, tuple) and inner[0] == "pre":
                inner = inner[2]
            if isinstance(inner, tuple):
                rec(inner[2])
    rec(data)
    return out


def deep_copy(d):
    if isinstance(d, bytes):
        return d
    if d[0] == "pre":
        return ("pre", d[1], deep_copy(d[2]))
    return ("list", d[1], [deep_copy(x) for x in d[2]])


class Pools:
    def __init__(self, builtins):
        self.builtins = builtins  # {name: (min, max)}
        self.names = sorted(n for n in builtins if n not in NEVER_CALL)

    def value(self, rng, allow_huge=True):
        r = rng.random()
        if r < 0.2:
            return rng.choice(HUGE_INTS if allow_huge else SMALL_INTS)
        if r < 0.4:
            return rng.choice(SMALL_INTS)
        if r < 0.55:
            return rng.choice(FLOATS)
        if r < 0.65:
            return rng.choice(BIG)
        if r < 0.7 and self.names:
            return rng.choice(self.names)
        return rng.choice(OTHERS)


def mutate_sexp(rng, data, corpus_data, pools):
    """Applies 1-3 S-expression mutations in place; returns the data."""
    for _ in range(rng.randint(1, 3)):
        spots = positions(data)
        if not spots:
            data.append(rng.choice(TOKENS).encode())
            continue
        lst, i = rng.choice(spots)
        kind = rng.choice(["value", "value", "builtin", "delete", "duplicate", "swap", "wrap",
                           "nest", "splice", "head", "number"])
        if kind == "value":
            lst[i] = pools.value(rng).encode()
        elif kind == "builtin" and pools.names:
            lst[i] = rng.choice(pools.names).encode()
        elif kind == "delete":
            del lst[i]
        elif kind == "duplicate":
            lst.insert(i, deep_copy(lst[i]))
        elif kind == "swap":
            lst2, j = rng.choice(spots)
            if lst2 is not lst or i != j:
                a, b = lst[i], lst2[j]
                # a datum cannot move into itself
                if not contains(a, lst2) and not contains(b, lst):
                    lst[i], lst2[j] = b, a
        elif kind == "wrap" and pools.names:
            name = rng.choice(pools.names).encode()
            extra = [pools.value(rng).encode()] if rng.random() < 0.5 else []
            lst[i] = ("list", b"(", [name, lst[i]] + extra)
        elif kind == "nest":
            head = rng.choice([b"list", b"begin", b"vector", b"car", b"quote", b"let ()"])
            d = lst[i]
            for _ in range(rng.choice([10, 100, 1000])):
                d = ("list", b"(", [head, d])
            lst[i] = d
        elif kind == "splice" and corpus_data:
            other = rng.choice(corpus_data)
            ospots = positions(other)
            if ospots:
                olst, oi = rng.choice(ospots)
                lst.insert(i, deep_copy(olst[oi]))
        elif kind == "head":
            d = lst[i]
            if isinstance(d, tuple) and d[0] == "list" and d[2] and pools.names:
                d[2][0] = rng.choice(pools.names).encode()
        elif kind == "number":
            nums = [(l, j) for l, j in spots if isinstance(l[j], bytes) and re.match(rb"^[-+]?\d", l[j])]
            if nums:
                l, j = rng.choice(nums)
                l[j] = rng.choice(HUGE_INTS + SMALL_INTS + FLOATS).encode()
    return data


def contains(d, lst):
    """Whether list object `lst` is inside datum d (or is d's own item list)."""
    if isinstance(d, bytes):
        return False
    if d[0] == "pre":
        return contains(d[2], lst)
    if d[2] is lst:
        return True
    return any(contains(x, lst) for x in d[2])


# ---------------------------------------------------------------------------
# Generated builtin calls and deep nesting
# ---------------------------------------------------------------------------

def builtin_call(rng, pools, name):
    lo, hi = pools.builtins.get(name, (0, 4))
    hi = lo + 3 if hi < 0 else hi
    n = rng.randint(max(0, lo - 1), hi + 1) if rng.random() < 0.2 else rng.randint(lo, max(lo, hi))
    fam = family(name)
    args = [rng.choice(fam) if fam and rng.random() < 0.6 else pools.value(rng) for _ in range(n)]
    if rng.random() < 0.05:
        return f"(apply {name} {rng.choice(['big-list', 'deep-list', '(list 1 2)', 'circ'])})"
    return f"({name} {' '.join(args)})".replace(f"({name} )", f"({name})")


def is_huge_size_call(name, call):
    return name in SIZE_BUILTINS and any(h in call for h in HUGE_INTS + ["1e308", "+inf.0", "1e18", "-1e19"])


# Higher-order builtins get callbacks that misbehave: re-enter through a continuation
# captured inside the call, escape from it, mutate the collection being walked, raise,
# return odd types, or compare inconsistently.
HIGHER_ORDER = ["map", "for-each", "append-map", "filter-map", "any", "every", "count", "fold-left",
                "fold-right", "foldl", "foldr", "fold", "reduce", "filter", "remove", "partition",
                "delete", "delete-duplicates", "find", "find-tail", "member", "assoc", "apply", "sort",
                "sort!", "list-sort", "vector-sort", "vector-sort!", "string-for-each", "string-map",
                "tensor-map", "vector-map", "vector-for-each", "list-tabulate", "hash-table-walk",
                "hash-table-fold", "hash-table-update!", "hash-table-update!/default", "call-with-values",
                "dynamic-wind", "with-exception-handler", "graph-eval", "graph-grad", "graph-compile"]
CALLBACKS = ["(lambda args (call/cc (lambda (c) (set! saved-k c) #t)))",
             "(lambda args (if escape (escape 'out) 0))",
             "(lambda args (set-cdr! coll '()) #t)",
             "(lambda args (set-car! coll 'x) 1)",
             "(lambda args (vector-fill! vcoll 'z) #f)",
             "(lambda args (hash-table-clear! hcoll) 0)",
             "(lambda args (hash-table-set! hcoll (length args) args) 1)",
             "(lambda args (string-set! scoll 0 #\\z) #\\a)",
             "(lambda args (raise 'cb))", "(lambda args (car '()))",
             "(lambda (a b) #t)", "(lambda (a b) (< (random-ish) 5))", "(lambda args 'sym)",
             "(lambda args (values 1 2))", "(lambda args (values))", "(lambda args args)",
             "(lambda args (apply max 1 (filter number? args)))", "(lambda (x) (* x 2.0))",
             "(lambda (x) (tensor-sum x))", "car", "+", "list", "vector", "values", "cons"]
CB_PRELUDE = """(define saved-k #f)
(define escape #f)
(define coll (list 5 3 1 4 2 6 9 8 7 0))
(define vcoll (vector 5 3 1 4 2 6 9 8 7 0))
(define hcoll (let ((h (make-hash-table))) (hash-table-set! h 1 2) (hash-table-set! h 3 4) h))
(define scoll (make-string 10 #\\a))
(define ri 0)
(define (random-ish) (set! ri (modulo (+ (* ri 7) 3) 10)) ri)
(define reentries 0)
"""
CB_SHAPES = {"sort": "DC", "sort!": "DC", "vector-sort": "DC", "vector-sort!": "DC", "list-sort": "CD",
             "member": "DDC", "assoc": "DDC", "hash-table-walk": "DC", "hash-table-fold": "DCD",
             "hash-table-update!": "DDC", "hash-table-update!/default": "DDCD", "dynamic-wind": "CCC",
             "with-exception-handler": "CC", "call-with-values": "CC", "fold": "CDD", "fold-left": "CDD",
             "fold-right": "CDD", "foldl": "CDD", "foldr": "CDD", "reduce": "CDD", "list-tabulate": "DC",
             "graph-eval": "CD", "graph-grad": "CD", "graph-compile": "CD", "tensor-map": "CD"}
CB_ARGS = ["coll", "vcoll", "hcoll", "scoll", "'(1 2 3)", "(iota 1000)", "big-list", "circ", "'()",
           "(tensor '(1.0 2.0 3.0))", "(ones '(2 2))", "1", "'k", "0"]


def callback_program(rng, pools):
    """Guarded calls of higher-order builtins with misbehaving callbacks, some run
    inside a call/cc so that an escape or a later re-entry through saved-k happens."""
    names = [n for n in HIGHER_ORDER if n in pools.builtins]
    calls = []
    for _ in range(rng.randint(3, 10)):
        name = rng.choice(names)
        shape = CB_SHAPES.get(name, "CD") if rng.random() < 0.8 else \
            "".join(rng.choice("CD") for _ in range(rng.randint(1, 3)))
        if name in ("map", "for-each", "vector-map", "vector-for-each", "any", "every") and rng.random() < 0.3:
            shape = "CDD"
        args = [rng.choice(CALLBACKS) if k == "C" else rng.choice(CB_ARGS) for k in shape]
        call = f"({name} {' '.join(args)})"
        if rng.random() < 0.3:
            call = f"(call/cc (lambda (k) (set! escape k) {call}))"
        calls.append(f"(try-catch {call} (e) #f)")
        if rng.random() < 0.2:
            # re-enter the last captured continuation a few times
            calls.append("(when (and saved-k (< reentries 3)) (set! reentries (+ reentries 1)) "
                         "(try-catch (saved-k #f) (e) #f))")
    return PRELUDE + CB_PRELUDE + "\n".join(calls) + "\n"


def builtin_program(rng, pools):
    """A program of guarded builtin calls, or one unguarded huge-size call."""
    name = rng.choice(pools.names)
    call = builtin_call(rng, pools, name)
    if is_huge_size_call(name, call):
        return (PRELUDE if any(b in call for b in BIG) else "") + call + "\n"
    calls = []
    for _ in range(rng.randint(5, 25)):
        name = rng.choice(pools.names)
        call = builtin_call(rng, pools, name)
        if is_huge_size_call(name, call):
            continue
        calls.append(f"(try-catch {call} (e) #f)" if rng.random() < 0.9 else call)
    return PRELUDE + "\n".join(calls) + "\n"


def deep_program(rng, n=None, kind=None, wrap=None):
    """A program nested n deep; (program, (n, kind, wrap)) so that it can be made
    again with a smaller n."""
    n = n or rng.choice([1000, 10000, 100000, 1000000])
    kind = kind or rng.choice(["parens", "quote", "vector", "list", "begin", "if", "lambda", "quasi",
                       "plus", "let", "string-escape", "unclosed", "car", "vector-lit", "cond",
                       "and", "define", "apply"])
    if kind in ("let", "lambda", "define"):
        # nested bodies are analysed in quadratic time (issue 11 item 6): 25 000 nested
        # lambdas take minutes; deeper ones only hang until that is fixed
        n = min(n, 2000)
    if wrap is None:
        wrap = rng.random() < 0.5
    body = {
        "parens": "(" * n + ")" * n,
        "quote": "'" + "(" * n + ")" * n,
        "vector": "(vector " * n + "1" + ")" * n,
        "list": "(list " * n + "1" + ")" * n,
        "begin": "(begin " * n + "1" + ")" * n,
        "if": "(if #t " * n + "1" + " 2)" * n,
        "lambda": "(lambda () " * n + "1" + ")" * n,
        "quasi": "`(" * n + "," * min(n, 10) + "x" + ")" * n,
        "plus": "(+ 1 " * n + "1" + ")" * n,
        "let": "(let () " * n + "1" + ")" * n,
        "string-escape": "\"" + "\\\\" * n + "\"",
        "unclosed": "(" * n,
        "car": "(car " * n + "'(1)" + ")" * n,
        "vector-lit": "#(" * n + ")" * n,
        "cond": "(cond (#f 1) (else " * n + "1" + "))" * n,
        "and": "(and #t " * n + "1" + ")" * n,
        "define": "(define (f) " * min(n, 10000) + "1" + ")" * min(n, 10000) + " (f)",
        "apply": "(apply list " * n + "'()" + ")" * n,
    }[kind]
    if wrap:
        body = f"(write {body})"
    return body + "\n", (n, kind, wrap)


# ---------------------------------------------------------------------------
# Damaged data files for load-npy and read-csv
# ---------------------------------------------------------------------------

NPY_DESCRS = ["<f8", "<f4", "<i8", "<i4", "<i2", "|i1", "<u8", "<u4", "<u2", "|u1", "|b1", ">f8", ">f4",
              ">i8", ">i4", ">u2", "f8", "=i4", "<c16", "|O", "<f2", "<U3", "|V8", "<M8[ns]", ""]
HEADER_VALUES = [b"0", b"-1", b"1", b"99999999999999999999", b"4294967296", b"9223372036854775807",
                 b"18446744073709551616", b"1" * 40, b"()", b"(1,)", b"(0,)", b"(" * 50, b"[]", b"True",
                 b"None", b"'<f8'", b"'|O'", b"{}", b"'", b"\\", b"L", b"2.5"]


def npy_file(rng):
    """A .npy file as NumPy would write it, of a random dtype, shape, order and version
    (the data random bytes of the right length)."""
    descr = rng.choice(NPY_DESCRS[:17])
    size = int(descr[-1])
    shape = tuple(rng.randint(1, 4) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])))
    order = rng.choice(["True", "False"])
    text = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, order, "(%d,)" % shape[0] if len(shape) == 1 else str(shape).replace(" ", " "))
    major = rng.choice([1, 1, 1, 2, 3])
    head = text.encode() + b" " * rng.randint(0, 70) + b"\n"
    n = 1
    for d in shape:
        n *= d
    data = bytes(rng.randrange(256) for _ in range(n * size))
    length = len(head).to_bytes(2 if major == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([major, 0]) + length + head + data


def csv_text(rng):
    rows, cols = rng.randint(1, 6), rng.randint(1, 5)
    cells = ["0", "1", "-2", "3.25", "1e300", "-1e-300", "1e999", "inf", "-inf", "nan", "0x1p3", "+7", " 5 ",
             "\t6", "-0.0", ".5", "5.", "1e5"]
    eol = rng.choice([b"\n", b"\r\n"])
    lines = [b",".join(rng.choice(cells).encode() for _ in range(cols)) for _ in range(rows)]
    head = [b"a,b,c"] if rng.random() < 0.3 else []
    return eol.join(head + lines) + (eol if rng.random() < 0.8 else b"")


def damage(rng, data, npy):
    """1-3 damages to the bytes of a file: a cut, flipped bits, changed bytes, and for a
    .npy file edits of its header's values, length and version."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["cut", "flip", "byte", "edit", "edit", "length", "version", "insert", "delete"]
                          if npy else ["cut", "flip", "byte", "insert", "delete", "cell"])
        n = len(data)
        if kind == "cut" and n:
            data = data[:rng.randrange(n)]
        elif kind == "flip" and n:
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(data))
                data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
        elif kind == "byte" and n:
            i = rng.randrange(n)
            data = data[:i] + bytes([rng.choice([0, 255, ord(","), ord("\n"), ord("("), ord("'"),
                                                rng.randrange(256)])]) + data[i + 1:]
        elif kind == "edit":
            # a value inside the header dict replaced by a hostile one
            end = data.find(b"}", 10)
            spots = [m for m in re.finditer(rb"-?\d+|'[^']*'|True|False|\([^()]*\)", data[10:end if end > 0 else 200])]
            if spots:
                m = rng.choice(spots)
                value = rng.choice(HEADER_VALUES)
                data = data[:10 + m.start()] + value + data[10 + m.end():]
                if rng.random() < 0.7 and len(data) >= 12:
                    # keep the header length right, so that the parser sees the edit
                    width = 2 if data[6:7] == b"\x01" else 4
                    old = int.from_bytes(data[8:8 + width], "little")
                    fixed = max(0, old + len(value) - (m.end() - m.start())) % 2**(8 * width)
                    data = data[:8] + fixed.to_bytes(width, "little") + data[8 + width:]
        elif kind == "length" and n >= 12:
            width = 2 if data[6:7] == b"\x01" else 4
            value = rng.choice([0, 1, 5, n, n - 10, 65535, 2**31, 2**32 - 1, rng.randrange(2**16)])
            data = data[:8] + (value % 2**(8 * width)).to_bytes(width, "little") + data[8 + width:]
        elif kind == "version" and n >= 8:
            data = data[:6] + bytes([rng.choice([0, 1, 2, 3, 4, 255]), rng.choice([0, 0, 1])]) + data[8:]
        elif kind == "insert":
            i = rng.randrange(n + 1)
            data = data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) + data[i:]
        elif kind == "delete" and n:
            i = rng.randrange(n)
            data = data[:i] + data[i + rng.randint(1, 16):]
        elif kind == "cell":
            junk = rng.choice([b"abc", b"", b",", b",,", b"\n", b"\x00", b"1 2", b"9" * 3000, b"\xef\xbb\xbf"])
            i = rng.randrange(n + 1)
            data = data[:i] + junk + data[i:]
    return data


def model_file(rng):
    """A version 3 model file laid out as save-model writes it (docs/model-format.md):
    a random tree of tensors, numbers, strings and named pairs."""
    data = []
    at = [0]

    def value(depth):
        r = rng.random()
        if depth > 3 or r < 0.5:
            kind = rng.choice(["tensor", "tensor", "tensor", "int", "float", "string", "symbol"])
            if kind == "tensor":
                shape = [rng.randint(1, 5) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
                n = 1
                for d in shape:
                    n *= d
                raw = struct.pack("<%dd" % n, *(rng.uniform(-1e3, 1e3) for _ in range(n)))
                off = (at[0] + 63) // 64 * 64
                data.append((off, raw))
                at[0] = off + len(raw)
                return "tensor <f8 %d%s at %d crc32 %08x\n" % (
                    len(shape), "".join(" %d" % d for d in shape), off, zlib.crc32(raw))
            return {"int": "int %d\n" % rng.randint(-99, 99), "float": "float 0x1.8p+1\n",
                    "string": 'string "w"\n', "symbol": 'symbol "b"\n'}[kind]
        if r < 0.8:
            items = [value(depth + 1) for _ in range(rng.randint(0, 4))]
            return "list %d\n" % len(items) + "".join(items)
        return 'dotted 1\nsymbol "w%d"\n' % rng.randrange(9) + value(depth + 1)

    return model_bytes(value(0) + "end\n", data)


def model_bytes(body, data):
    head = b"kiln-model 3\nheader %d\n" % len(body) + body.encode()
    head += b"crc32 %08x\n" % zlib.crc32(head)
    out = bytearray(head + bytes(-len(head) % 64))
    start = len(out)
    for off, raw in data:
        out += bytes(start + off - len(out)) + raw
    return bytes(out)


def damage_model(rng, data):
    """A number in a version 3 header replaced by a hostile one, the header's length
    and checksum made right again (so the parser, not the checksum, meets it)."""
    if not data.startswith(b"kiln-model 3\n"):
        return data
    try:
        nl = data.index(b"\n", 13)
        n = int(data[20:nl])
        body = data[nl + 1:nl + 1 + n].decode()
    except ValueError:
        return data
    spots = list(re.finditer(r"-?\d+|<f8|crc32 [0-9a-f]+|at", body))
    if not spots:
        return data
    m = rng.choice(spots)
    new = rng.choice([v.decode() for v in HEADER_VALUES] + ["<f4", ">f8", "9", "65", "64", "-64", ""])
    body = body[:m.start()] + new + body[m.end():]
    tensors = data[(nl + 1 + n + 15 + 63) // 64 * 64:]
    head = b"kiln-model 3\nheader %d\n" % len(body.encode()) + body.encode()
    head += b"crc32 %08x\n" % zlib.crc32(head)
    return head + bytes(-len(head) % 64) + tensors


def old_model_file(rng):
    """A version 1 or 2 (text) model file."""
    body = "list 3\nint 5\ntensor 2 2 2\n0x1p+0 0x1p+1 0x1.8p+1 -0x0p+0\nstring \"s\"\nend\n"
    if rng.random() < 0.5:
        return ("kiln-model 1\n" + body).encode()
    text = ("kiln-model 2\n" + body).encode()
    return text + b"crc32 %08x\n" % zlib.crc32(text)


def npz_file(rng):
    """An .npz archive as numpy.savez or numpy.savez_compressed writes one."""
    buf = io.BytesIO()
    method = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        for k in range(rng.randint(0, 4)):
            with z.open(rng.choice(["w%d.npy" % k, "arr_%d.npy" % k]), "w", force_zip64=rng.random() < 0.5) as f:
                f.write(npy_file(rng))
    return buf.getvalue()


def damage_zip(rng, data):
    """A 2- or 4-byte field near the end (the central directory and end record) or at a
    local header replaced by a hostile value."""
    if len(data) < 8:
        return data
    width = rng.choice([2, 4])
    i = rng.choice([rng.randrange(max(1, len(data) - 120), len(data) - width + 1), rng.randrange(0, 40)])
    value = rng.choice([0, 1, 0xff, 0xffff, 0xffffffff, 0x7fffffff, len(data), rng.randrange(2**16)])
    return data[:i] + (value % 2**(8 * width)).to_bytes(width, "little") + data[i + width:]


def table_text(rng):
    """Text for read-csv and read-table with options: delimiters, quotes, text cells."""
    delim = rng.choice([b",", b" ", b"  ", b"\t", b";"])
    cells = [b"1", b"-2.5", b"nan", b"abc", b"\"q,uo\"\"te\"", b"\"\"", b"", b"  7  ", b"x y", b"1e999",
             "λ".encode(), b"\"multi\nline\""]
    rows, cols = rng.randint(1, 5), rng.randint(1, 4)
    lines = [delim.join(rng.choice(cells) for _ in range(cols)) for _ in range(rows)]
    return b"\n".join(lines) + b"\n"


def table_read(rng, path):
    args = [rng.choice(["#t", "#f"])] if rng.random() < 0.7 else []
    if rng.random() < 0.6:
        args += ["'delimiter", rng.choice(["#\\space", "#\\tab", "#\\,", "#\\;", "#\\x", "5"])]
    if rng.random() < 0.5:
        cols = rng.sample(range(5), rng.randint(1, 3)) if rng.random() < 0.9 else [0, 0]
        args += ["'columns", "'(%s)" % " ".join(map(str, cols))]
    fn = rng.choice(["read-csv", "read-table"])
    call = "(%s \"%s\" %s)" % (fn, path, " ".join(args))
    return "(use-all %s)" % call if fn == "read-table" else "(use %s)" % call


def lisp_bytevector(data):
    return "#u8(" + " ".join(str(b) for b in data) + ")"


def files_program(rng, seeds):
    """Writes 3-8 damaged data files and reads each in a try-catch, using the result."""
    forms = ["(define (putb path bv) (call-with-port (open-binary-output-file path) "
             "(lambda (p) (write-bytevector bv p))))",
             "(define (use t) (if (tensor? t) (list (tensor-shape t) (tensor-sum t)) t))",
             "(define (use-all v) (if (list? v) (map (lambda (x) (if (pair? x) (use (cdr x)) (use x))) v) (use v)))"]
    for i in range(rng.randint(3, 8)):
        r = rng.random()
        if r < 0.4:
            # the newer readers: model files, .npz archives, tables with options
            kind = rng.choice(["model", "model", "old_model", "npz", "npz", "npz_seed", "table"])
            if kind == "table":
                data, ext = table_text(rng), "csv"
                data = damage(rng, data, False) if rng.random() < 0.5 else data
            elif kind in ("model", "old_model"):
                data, ext = (model_file(rng) if kind == "model" else old_model_file(rng)), "kiln"
                if rng.random() < 0.5:
                    data = damage_model(rng, data)
                if rng.random() < 0.6:
                    data = damage(rng, data, False)
            else:
                data = npz_file(rng) if kind == "npz" or not seeds["npz"] else rng.choice(seeds["npz"])
                ext = "npz"
                if rng.random() < 0.5:
                    data = damage_zip(rng, data)
                if rng.random() < 0.6:
                    data = damage(rng, data, False)
            path = f"f{i}.{ext}"
            forms.append(f"(putb \"{path}\" {lisp_bytevector(data)})")
            read = {"kiln": f'(use-all (load-model "{path}"))', "npz": f'(use-all (load-npz "{path}"))',
                    "csv": table_read(rng, path)}[ext]
            forms.append(f"(try-catch {read} (e) #f)")
            continue
        if r < 0.3 and seeds["npy"]:
            data, npy, gz = rng.choice(seeds["npy"]), True, False
        elif r < 0.55:
            data, npy, gz = npy_file(rng), True, False
        elif r < 0.7 and seeds["csv"]:
            data, npy, gz = rng.choice(seeds["csv"]), False, False
        else:
            data, npy, gz = csv_text(rng), False, rng.random() < 0.4
        if gz:
            data = damage(rng, data, False) if rng.random() < 0.5 else data
            data = gzip.compress(data, mtime=0)
        data = damage(rng, data, npy) if rng.random() < 0.9 else data
        path = f"f{i}.{'npy' if npy else 'csv'}"
        forms.append(f"(putb \"{path}\" {lisp_bytevector(data)})")
        read = f'(load-npy "{path}")' if npy else f'(read-csv "{path}" {rng.choice(["#t", "#f"])})'
        forms.append(f"(try-catch (use {read}) (e) #f)")
    return "\n".join(forms) + "\n"


def data_file_seeds(repo):
    """The committed test data: {'npy': [bytes], 'npz': [bytes], 'csv': [bytes]} (gzip files count as CSV)."""
    base = repo / "tests" / "data"
    return {"npy": [p.read_bytes() for p in sorted(base.glob("npy/*.npy"))],
            "npz": [p.read_bytes() for p in sorted(base.glob("npz/*.npz"))],
            "csv": [p.read_bytes() for p in sorted(base.glob("csv/*")) if p.is_file()]}


# ---------------------------------------------------------------------------
# Running and judging
# ---------------------------------------------------------------------------

def is_asan_build(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def limit_memory():
    # Keep a runaway allocation from taking the machine (Release builds only: ASan
    # reserves terabytes of address space for its shadow memory).
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))


def run_one(kiln, path, cwd, env, timeout, asan):
    """(status, signal, problem-free-interrupt, hung, stderr)."""
    proc = subprocess.Popen([kiln, path.name], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=None if asan else limit_memory)
    err = b""
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # A program may loop forever in Lisp. Kiln answers Ctrl-C there with
        # "interrupted" and status 130; a hang in the runtime would not.
        proc.send_signal(signal.SIGINT)
        try:
            # Kiln answers within a second; the rest is margin for a loaded machine,
            # where freeing a process's gigabytes alone can take seconds (issue 35).
            _, err = proc.communicate(timeout=10 if not asan else 20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, None, True, b""
        if proc.returncode == 130 and b"interrupted" in err:
            return "interrupted", None, False, err
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if proc.returncode < 0:
        return None, -proc.returncode, False, err
    return proc.returncode, None, False, err


def judge(result):
    """A failure kind (a short string) or None."""
    status, sig, hung, err = result
    if hung:
        return "hang (SIGINT ignored)"
    if any(m in err for m in SANITIZER_MARKS):
        m = re.search(rb"ERROR: AddressSanitizer: ([\w-]+)", err) or re.search(rb"runtime error: ([^\n]{0,60})", err)
        return "sanitizer: " + (m.group(1).decode(errors="replace") if m else "report")
    if sig is not None:
        try:
            return f"signal {signal.Signals(sig).name}"
        except ValueError:
            return f"signal {sig}"
    if status not in (0, 1, "interrupted"):
        return f"exit status {status}"
    if status == 1 and b"error:" not in err:
        return "status 1 without an 'error:' message"
    return None


class Runner:
    def __init__(self, kiln, timeout):
        self.kiln = kiln
        self.timeout = timeout
        self.scratch = Path(tempfile.mkdtemp(prefix="kiln-crash-fuzz-"))
        self.env = dict(os.environ)
        self.env["KILN_CACHE_DIR"] = str(self.scratch / "kernel-cache")
        self.env.pop("KILN_GC_STRESS", None)
        self.asan = is_asan_build(kiln)
        if self.asan:
            # A sanitizer report must not pass for an ordinary status-1 error.
            for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
                self.env[var] = ":".join(filter(None, [self.env.get(var, ""), "exitcode=86"]))
        self.counter = 0
        self.runs = 0

    def run(self, program):
        self.counter += 1
        cwd = self.scratch / f"case{self.counter}"
        cwd.mkdir()
        path = cwd / "case.lisp"
        path.write_bytes(program)
        self.runs += 1
        result = run_one(self.kiln, path, cwd, self.env, self.timeout, self.asan)
        shutil.rmtree(cwd, ignore_errors=True)
        return result

    def cleanup(self):
        shutil.rmtree(self.scratch, ignore_errors=True)


# ---------------------------------------------------------------------------
# Minimisation
# ---------------------------------------------------------------------------

def ddmin(items, fails, deadline):
    """Delta debugging: a small sublist of items for which fails(sublist) holds."""
    n = 2
    while len(items) >= 2 and time.monotonic() < deadline:
        chunk = max(1, len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            if time.monotonic() >= deadline:
                break
            rest = items[:start] + items[start + chunk:]
            if rest and fails(rest):
                items = rest
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(items), n * 2)
    return items


def max_depth(text):
    depth = best = 0
    for c in text:
        if c in b"([":
            depth += 1
            best = max(best, depth)
        elif c in b")]":
            depth -= 1
    return best


def minimise(runner, program, kind, seconds):
    deadline = time.monotonic() + seconds

    def fails(text):
        return judge(runner.run(text)) == kind

    best = program
    depth = max_depth(program)
    # 1. top-level forms (keeping the prelude's definitions when they are used)
    try:
        if depth > 20000:
            raise SexpError(0)  # too deep for Python's recursion
        data = read_sexps(best)
        forms = [print_sexps([d]) for d in data]
        if len(forms) > 1:
            forms = ddmin(forms, lambda fs: fails(b"".join(fs)), deadline)
            best = b"".join(forms)
        # 2. inside forms: drop list items, replace sublists by 0
        changed = True
        while changed and time.monotonic() < deadline:
            changed = False
            data = read_sexps(best)
            for lst, i in reversed(positions(data)):
                if time.monotonic() >= deadline:
                    break
                for repl in (None, b"0"):
                    trial = [deep_copy(d) for d in data]
                    # the same spot in the copy, by its pre-order number
                    k = next(j for j, (l, x) in enumerate(positions(data)) if l is lst and x == i)
                    tl, ti = positions(trial)[k]
                    if repl is None:
                        del tl[ti]
                    elif tl[ti] != repl and not isinstance(tl[ti], bytes):
                        tl[ti] = repl
                    else:
                        continue
                    text = print_sexps(trial)
                    if len(text) < len(best) and fails(text):
                        best = text
                        changed = True
                        break
                if changed:
                    break
    except (SexpError, RecursionError):
        pass
    # 3. lines, then characters
    lines = best.split(b"\n")
    if len(lines) > 1:
        best = b"\n".join(ddmin(lines, lambda ls: fails(b"\n".join(ls)), deadline))
    if len(best) < 4000:
        chars = [best[i:i + 1] for i in range(len(best))]
        best = b"".join(ddmin(chars, lambda cs: fails(b"".join(cs)), deadline))
    return best


# ---------------------------------------------------------------------------
# Builtin names, from kiln and the sources
# ---------------------------------------------------------------------------

def builtin_arities(repo):
    arity = {}
    for f in list((repo / "stdlib").glob("*.cpp")) + list((repo / "compiler").glob("*.cpp")) + \
            list((repo / "runtime").glob("*.cpp")):
        for m in re.finditer(r'defbuiltin\(\s*"([^"]+)"\s*,\s*(-?\d+)\s*,\s*(-?\d+)', f.read_text(errors="replace")):
            arity[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return arity


def bound_builtins(kiln, env):
    """{name: kind} of every global name, from the REPL's ,apropos."""
    chars = "abcdefghijklmnopqrstuvwxyz%*+-/<>=!?0123456789:&^~_."
    script = "".join(f",apropos {c}\n" for c in chars)
    try:
        out = subprocess.run([kiln], input=script.encode(), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env, timeout=60).stdout.decode(errors="replace")
    except (subprocess.TimeoutExpired, OSError):
        return {}
    names = {}
    for line in out.splitlines():
        m = re.match(r"^(?:kiln> )?(\S+)\s{2,}(\S.*)$", line)
        if m:
            names[m.group(1)] = m.group(2).strip()
    return names


def load_pools(kiln, repo, env, skip):
    arity = builtin_arities(repo)
    bound = bound_builtins(kiln, env)
    names = {}
    for n, kind in bound.items():
        if "procedure" in kind or "builtin" in kind:
            names[n] = arity.get(n, (0, 4))
    if not names:  # no REPL answer: the sources' registrations
        names = dict(arity)
    for n in skip:
        names.pop(n, None)
    return Pools(names)


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def cpu_seconds(kiln, source, env, limit, cpu_limit):
    """CPU time of `kiln source`; inf when it is killed after `limit` s of wall time or
    `cpu_limit` (whole) s of CPU time, so a slow file costs only that much."""
    def limit_cpu():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 1))
    proc = subprocess.Popen([kiln, source.name], cwd=source.parent, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=limit_cpu)
    deadline = time.monotonic() + limit
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped
            break
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return float("inf")
        time.sleep(0.01)
    if os.WIFSIGNALED(status):
        return float("inf")
    return usage.ru_utime + usage.ru_stime


def golden_report_times(report, kiln, repo):
    """{golden file: CPU seconds} from a JUnit report of `kiln test` (its testcases'
    `cpu` attribute) newer than the kiln binary, so the golden runner's run of every
    file is not made again here; {} when there is none."""
    if not report:
        return {}
    report = Path(report)
    try:
        if report.stat().st_mtime < os.stat(kiln).st_mtime:
            return {}
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return {}
    golden = repo.resolve() / "tests" / "golden"
    times = {}
    for case in root.iter("testcase"):
        name, cpu = case.get("name", ""), case.get("cpu")
        if cpu is None or case.find("skipped") is not None:
            continue
        # `kiln test tests/golden` names lists/sort; `kiln test tests/golden/lists/sort` names it so
        path = golden / (name.split("tests/golden/", 1)[-1] + ".lisp")
        try:
            if path.stat().st_mtime <= report.stat().st_mtime:  # not edited since
                times[path] = float(cpu)
        except (OSError, ValueError):
            pass
    return times


def quick_sources(kiln, sources, env, jobs, budget, known=None):
    """The golden files whose unmutated run takes at most `budget` CPU seconds: a
    mutation can multiply a loop count, so a slow test would make slow, not hung,
    mutants; those are left out rather than raising the timeout. `known` holds the
    CPU seconds the golden runner measured (golden_report_times); a file changed
    since, or not in it, is run here."""
    known = known or {}
    # SIGXCPU one whole second past the budget: the answer (slow) is the same, and
    # the golden suite's slowest files stop after seconds, not after the wall limit.
    def measure(path):
        return cpu_seconds(kiln, path, env, budget * 10, int(budget) + 1)
    unknown = [p for p in sources if p.resolve() not in known]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        measured = dict(zip(unknown, pool.map(measure, unknown)))
    times = [known[p.resolve()] if p.resolve() in known else measured[p] for p in sources]
    slow = [p for p, t in zip(sources, times) if t > budget]
    print(f"crash_fuzz: {len(sources) - len(unknown)} golden files timed by the golden runner's report, "
          f"{len(unknown)} here; not mutating {len(slow)} slow ones", flush=True)
    return [p for p, t in zip(sources, times) if t <= budget]


def make_case(rng, corpus, corpus_data, pools, seeds):
    r = rng.random()
    if r < 0.05 or not corpus:
        return "soup", token_soup(rng), None
    if r < 0.33:
        return "text", mutate_text(rng, rng.choice(corpus), corpus), None
    if r < 0.58 and corpus_data:
        data = [deep_copy(d) for d in rng.choice(corpus_data)]
        return "sexp", print_sexps(mutate_sexp(rng, data, corpus_data, pools)), None
    if r < 0.80 and pools.names:
        return "builtins", builtin_program(rng, pools).encode(), None
    if r < 0.88 and pools.names:
        return "callbacks", callback_program(rng, pools).encode(), None
    if r < 0.95 and all(b in pools.builtins for b in ("load-npy", "read-csv", "load-npz", "load-model")):
        return "files", files_program(rng, seeds).encode(), None
    text, meta = deep_program(rng)
    return "deep", text.encode(), meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kiln")
    sys.setrecursionlimit(100000)  # the S-expression code recurses over nested data
    ap.add_argument("repo")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("KILN_FUZZ_SEED", "1")))
    ap.add_argument("--count", type=int, default=int(os.environ.get("KILN_FUZZ_CASES", "500")))
    ap.add_argument("--minutes", type=float, default=0, help="long mode: run this long (--count per round)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("KILN_FUZZ_JOBS", "2")))
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("KILN_FUZZ_TIMEOUT", "0")) or None)
    ap.add_argument("--golden-report", default=os.environ.get("KILN_FUZZ_GOLDEN_REPORT", ""),
                    help="a JUnit report of `kiln test` over tests/golden by this kiln: its CPU times "
                    "spare running every golden file again to find the slow ones")
    ap.add_argument("--save", default=os.environ.get("KILN_FUZZ_SAVE", "crash-fuzz-failures"))
    ap.add_argument("--minimise-seconds", type=float, default=120)
    ap.add_argument("--skip", default="", help="comma-separated builtins never to call")
    ap.add_argument("--only", default="", help="only programs of this kind (soup, text, sexp, builtins, "
                    "callbacks, files, deep), e.g. files for the data-file readers")
    args = ap.parse_args()

    kiln = os.path.abspath(args.kiln)
    repo = Path(args.repo)
    runner = Runner(kiln, 0)
    runner.timeout = args.timeout or (30.0 if runner.asan else 10.0)
    save = Path(args.save).absolute()
    pools = load_pools(kiln, repo, runner.env, [s for s in args.skip.split(",") if s])

    sources = sorted((repo / "tests" / "golden").rglob("*.lisp"))
    sources = [p for p in sources if b"exit" not in p.read_bytes()]
    sources = quick_sources(kiln, sources, runner.env, args.jobs, runner.timeout / 10,
                            golden_report_times(args.golden_report, kiln, repo))
    corpus = [p.read_bytes() for p in sources]
    corpus += [t.encode() for t in TOKENS if t.startswith("(")]
    seeds = data_file_seeds(repo)
    corpus_data = []
    for text in corpus:
        try:
            corpus_data.append(read_sexps(text))
        except SexpError:
            pass

    print(f"crash_fuzz: seed {args.seed}, {'%g minutes' % args.minutes if args.minutes else '%d programs' % args.count}"
          f" from {len(sources)} golden files and {len(pools.names)} builtins, {args.jobs} jobs, timeout "
          f"{runner.timeout:g} s{' (sanitizer build)' if runner.asan else ''}", flush=True)
    start = time.monotonic()
    failures = []
    tries = {}
    signatures = set()
    counts = {}
    total = 0
    seed = args.seed

    def report(seed_i, index, origin, kind, program, err, meta):
        """Saves a failure; minimises the first few of each kind and origin and keeps
        one minimised program per kind and set of called names."""
        save.mkdir(parents=True, exist_ok=True)
        stem = f"seed{seed_i}-case{index}"
        (save / f"{stem}.orig.lisp").write_bytes(program)
        tail = err.decode(errors="replace").strip().splitlines()[-4:]
        print(f"FAIL {save / (stem + '.orig.lisp')} [{origin}]: {kind}", flush=True)
        for line in tail:
            print(f"    {line}", flush=True)
        key = (kind, origin)
        tries[key] = tries.get(key, 0) + 1
        if tries[key] > 5 or args.minimise_seconds <= 0:
            return
        if meta:
            # nested n deep: the smallest n (of n/2, n/4, ...) that still fails
            n, deep_kind, wrap = meta
            small = program
            while n > 1:
                n //= 2
                text = deep_program(None, n, deep_kind, wrap)[0].encode()
                if judge(runner.run(text)) != kind:
                    break
                small = text
        else:
            small = minimise(runner, program, kind, args.minimise_seconds)
        heads = tuple(sorted(set(re.findall(rb"\(([^\s()'\"#]+)", small))))
        if (kind, heads) in signatures:
            print(f"    minimised to a known signature ({kind}: {b' '.join(heads).decode(errors='replace')})",
                  flush=True)
            return
        signatures.add((kind, heads))
        (save / f"{stem}.min.lisp").write_bytes(small)
        print(f"    minimised ({len(small)} bytes) {save / (stem + '.min.lisp')}: "
              f"{small.decode(errors='replace')[:300]}", flush=True)

    try:
        while True:
            rng = random.Random(seed)
            cases = []
            while len(cases) < args.count:
                origin, program, meta = make_case(rng, corpus, corpus_data, pools, seeds)
                if b"exit" in program or b"delete-file" in program or (args.only and origin != args.only):
                    continue
                cases.append((origin, program, meta))
            found = []
            with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
                results = pool.map(lambda c: runner.run(c[1]), cases)
                for index, ((origin, program, meta), result) in enumerate(zip(cases, results)):
                    total += 1
                    counts[origin] = counts.get(origin, 0) + 1
                    if origin in ("builtins", "callbacks"):
                        # generated calls (each guarded, or the one huge-size call)
                        calls = program.count(b"(try-catch ") or 1
                        counts["generated calls"] = counts.get("generated calls", 0) + calls
                    kind = judge(result)
                    if kind:
                        found.append((seed, index, origin, kind, program, result[3], meta))
            failures += found
            for f in found:
                report(*f)
            if not args.minutes or time.monotonic() - start > args.minutes * 60:
                break
            print(f"crash_fuzz: round seed {seed} done: {total} programs "
                  f"({counts.get('generated calls', 0)} generated builtin calls), {len(failures)} failures, "
                  f"{time.monotonic() - start:.0f} s", flush=True)
            seed += 1
    finally:
        runner.cleanup()
    elapsed = time.monotonic() - start
    detail = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"crash_fuzz: {total - len(failures)}/{total} programs behaved ({detail}) in {elapsed:.0f} s "
          f"({runner.runs} kiln runs)", flush=True)
    if failures:
        print(f"crash_fuzz: {len(failures)} failures; saved in {save}; rerun one with: kiln FILE")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

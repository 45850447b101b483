"""The commands ,bt ,expand ,describe (of syntax) and ,apropos, and how a
record echoes, in plain mode (piped stdin) where stdout and stderr can be
compared whole."""
import os
import re
import tempfile

from pty_harness import main, check, run_plain


def test_bt(kiln):
    tmp = tempfile.mkdtemp(prefix="kiln-bt-")
    with open(os.path.join(tmp, "lib.lisp"), "w") as f:
        f.write("(define (f x)\n  (car x))\n(define (g x) (+ 1 (f x)))\n")
    code, out, err = run_plain(kiln, ["-q", "-i"],
                               ",bt\n"
                               ",load lib.lisp\n"
                               "(define (h y)\n  (list (g y)))\n"
                               "(h 5)\n"
                               ",bt\n"
                               "(cdr 1)\n"
                               ",bt\n", cwd=tmp)
    check(code == 0, f"status {code}")
    check(err == ("lib.lisp:2:3: error: car: argument 1 must be a pair, got 5\n"
                  "<repl-3>:1:1: error: cdr: argument 1 must be a pair, got 1\n"), f"stderr: {err!r}")
    check(out == ("no error yet in this session\n"
                  "lib.lisp:2:3: error: car: argument 1 must be a pair, got 5\n"
                  "  at f (lib.lisp:2:3)\n"
                  "  at g (lib.lisp:3:20)\n"
                  "  at h (<repl-1>:2:9)\n"
                  "  at top level (<repl-2>:1:1)\n"
                  "<repl-3>:1:1: error: cdr: argument 1 must be a pair, got 1\n"
                  "  at top level (<repl-3>:1:1)\n"), f",bt: {out!r}")


def test_expand(kiln):
    code, out, err = run_plain(kiln, ["-q", "-i"],
                               ",expand (receive (a b) (values 1 2) (+ a b))\n"
                               "(define-syntax swap! (syntax-rules () ((_ a b) (let ((t a)) (set! a b) (set! b t)))))\n"
                               "(defmacro my-unless (c . body) `(if ,c #f (begin ,@body)))\n"
                               "(defmacro twice-unless (c x) `(my-unless ,c (list ,x ,x)))\n"
                               ",expand (swap! p q)\n"
                               ",expand (twice-unless #f (my-unless #t 1))\n"
                               ",expand (when 1 2) 5\n"
                               ",expand\n")
    check(code == 0, f"status {code}")
    check(out == ("(call-with-values (lambda () (values 1 2)) (lambda (a b) (+ a b)))\n"
                  "(let ((t p)) (set! p q) (set! q t))\n"
                  # the head is expanded until it is no macro; subforms stay as written
                  "(if #f #f (begin (list (my-unless #t 1) (my-unless #t 1))))\n"
                  "(when 1 2)\n5\n"), f",expand: {out!r}")
    check(err == "error: usage: ,expand FORM\n", f"stderr: {err!r}")


ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def syntax_names():
    """Every special form (runtime/analyze.cpp's table) and prelude macro."""
    with open(os.path.join(ROOT, "runtime", "analyze.cpp")) as f:
        special = re.findall(r'\{"([^"]+)", SF_', f.read())
    with open(os.path.join(ROOT, "stdlib", "prelude.lisp")) as f:
        macros = re.findall(r"^\(defmacro (\S+)", f.read(), re.M)
    check(len(special) > 20 and len(macros) > 10, f"found {special} {macros}")
    return special, macros


def test_describe_syntax(kiln):
    code, out, err = run_plain(kiln, ["-q", "-i"], ",describe when\n,describe do\n")
    check(out == ("when: special form\n  syntax: (when TEST BODY...)\n"
                  "  doc: Evaluates BODY when TEST is true.\n"
                  "do: macro\n  syntax: (do ((VAR INIT [STEP])...) (TEST RESULT...) BODY...)\n"
                  "  doc: Loops: runs BODY and steps the VARs until TEST is true, then evaluates RESULT.\n"
                  "  defined at <prelude>:6:1\n"), f",describe: {out!r}")
    special, macros = syntax_names()
    names = special + macros
    code, out, err = run_plain(kiln, ["-q", "-i"], "".join(f",describe {n}\n" for n in names))
    check(code == 0 and err == "", f"status {code}, stderr {err!r}")
    blocks = re.split(r"\n(?=\S)", out.strip())
    check(len(blocks) == len(names), f"one description per name: {out!r}")
    for name, block in zip(names, blocks):
        kind = "special form" if name in special else "macro"
        check(block.startswith(f"{name}: {kind}\n  syntax: "),
              f"{name}: {block!r}")
        check(re.search(r"\n  doc: [^\n]+", block), f"{name} has a doc line: {block!r}")
    # A user's macro of the same name is described as the user wrote it.
    code, out, err = run_plain(kiln, ["-q", "-i"], "(defmacro assert (x) \"Mine.\" x)\n,describe assert\n")
    check(out == "assert: macro\n  doc: Mine.\n  defined at <repl-1>:1:1\n", f"user macro: {out!r}")


def test_describe_imported(kiln):
    """,describe follows the program's imports: prefixed and renamed names."""
    code, out, err = run_plain(kiln, ["-q", "-i"],
                               "(import (prefix (scheme base) s:))\n"
                               "(define-library (r) (export v (rename w mac)) (import (scheme base))"
                               " (begin (define v 1) (define-syntax w (syntax-rules () ((_ x) x)))))\n"
                               "(import (r))\n"
                               ",describe s:define\n,describe v\n,describe mac\n,describe s:nothing\n")
    check(out == ("s:define: special form\n"
                  "  syntax: (define NAME EXPR) or (define (NAME . FORMALS) BODY...)\n"
                  "  doc: Binds NAME globally at top level, or locally at the start of a body.\n"
                  "v: variable\n  value: integer 1\n"
                  "mac: macro\n  syntax: (mac x)\n  defined at <repl-2>:1:90\n"), f",describe imported: {out!r}")
    check("s:nothing is not bound" in err, f"unbound: {err!r}")


def test_apropos(kiln):
    code, out, err = run_plain(kiln, ["-q", "-i"],
                               "(define a-procedure-whose-name-is-longer-than-the-old-columns (lambda () 1))\n"
                               "(define λ-zq 1)\n(define zq-vector-ref 2)\n"
                               ",apropos zq\n,apropos procedure-whose\n,apropos qqqqqq\n")
    check(code == 0 and err == "", f"status {code}, stderr {err!r}")
    check(out == ("zq-vector-ref  variable\n"
                  "λ-zq           variable\n"
                  "a-procedure-whose-name-is-longer-than-the-old-columns  procedure\n"
                  "no bound name contains qqqqqq\n"), f",apropos: {out!r}")


def test_record_echo(kiln):
    code, out, err = run_plain(kiln, ["-q", "-i"],
                               "(define-record-type <point> (make-point x y) point? (x point-x) (y point-y))\n"
                               "(make-point 1 \"a\")\n(display (make-point 1 \"a\"))\n")
    check(out == '#<point x: 1 y: "a">\n#<point x: 1 y: a>', f"records echo with field names: {out!r}")


def test(kiln):
    test_bt(kiln)
    test_expand(kiln)
    test_describe_syntax(kiln)
    test_describe_imported(kiln)
    test_apropos(kiln)
    test_record_echo(kiln)


main(test)

"""The commands ,bt ,expand ,describe (of syntax) and ,apropos, in plain mode
(piped stdin) where stdout and stderr can be compared whole."""
import os
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


def test(kiln):
    test_bt(kiln)


main(test)

"""Plain mode: with stdin not a terminal the REPL prints no prompt, no colour
and no escape codes; values echo one per line, an error prints one line on
stderr and the input goes on; commands work; the exit status is 0 at the
end of input and n for (exit n)."""
import os
import subprocess
import tempfile

from pty_harness import main, check


def run(kiln, args, stdin, cwd=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm",
           "KILN_HISTFILE": os.path.join(tempfile.mkdtemp(prefix="kiln-plain-"), "history")}
    p = subprocess.run([kiln, *args], input=stdin.encode(), capture_output=True, timeout=60,
                       env=env, cwd=cwd)
    return p.returncode, p.stdout.decode(), p.stderr.decode(), env["KILN_HISTFILE"]


def test(kiln):
    code, out, err, hist = run(kiln, ["-i"], '(define x 2)\n(* x 21)\n(car 5)\n(+ x\n 1)\n"a\nb"\n(values 1 2)\n(list 1\n  (cdr 9))\n')
    check(code == 0, f"end of piped input exits 0, got {code}")
    check(out == '42\n3\n"a\\nb"\n1\n2\n', f"stdout: {out!r}")
    # An error names the entry (its number) and the line and column in it.
    check(err == "<repl-3>:1:1: error: car: argument 1 must be a pair, got 5\n"
          "<repl-7>:2:3: error: cdr: argument 1 must be a pair, got 9\n", f"stderr: {err!r}")
    check("\x1b" not in out + err, "no escape codes")
    check(not os.path.exists(hist), "plain mode keeps no history")

    # The banner is for terminals only; -e runs first; an unfinished form at
    # the end of input is reported like a script's.
    code, out, err, _ = run(kiln, ["-e", "(define y 5)", "-i"], "(* y y)\n(+ 1\n")
    check(code == 0, f"status {code}")
    check(out == "25\n", f"stdout: {out!r}")
    check(err.startswith("<repl-2>:2:1: error: unexpected end of input"), f"stderr: {err!r}")

    code, out, err, _ = run(kiln, ["-i"], "(display \"bye\")\n(exit 4)\n(display \"not reached\")\n")
    check(code == 4 and out == "bye", f"(exit 4): status {code}, stdout {out!r}")

    # Commands.
    tmp = tempfile.mkdtemp(prefix="kiln-plain-load-")
    with open(os.path.join(tmp, "lib.lisp"), "w") as f:
        f.write('(define (twice x)\n  "Doubles X."\n  (* 2 x))\n(define bad (lambda () (car 1)))\n'
                '(define thrice (lambda (x) "Triples X." (* 3 x)))\n')
    code, out, err, _ = run(kiln, ["-i"],
                            ',load lib.lisp\n(twice 21)\n,describe twice\n,describe car\n,describe if\n'
                            ',apropos twic\n,time (twice 4)\n,describe thrice\n,describe no-such-name\n(bad)\n,frobnicate\n'
                            ',help\n,quit\n(display "not reached")\n', cwd=tmp)
    check(code == 0, f"status {code}")
    expected_head = ("42\n"
                     "twice: procedure\n  arity: 1 argument\n  doc: Doubles X.\n  defined at lib.lisp:1:1\n"
                     "car: builtin procedure\n  arity: 1 argument\n")
    check(out.startswith(expected_head), f"stdout: {out!r}")
    check("thrice: procedure\n  arity: 1 argument\n  doc: Triples X.\n  defined at lib.lisp:5:16\n" in out,
          f"lambda doc string: {out!r}")
    check("if: special form\n" in out, f"special form: {out!r}")
    check("twice  procedure\n" in out, f"apropos: {out!r}")
    check("\n8\n;; wall " in out and " collection" in out, f",time: {out!r}")
    check(",help" in out and ",describe NAME" in out, f",help: {out!r}")
    check("not reached" not in out, ",quit ends the session")
    check(err == ("error: ,describe: no-such-name is not bound\n"
                  "lib.lisp:4:24: error: car: argument 1 must be a pair, got 1\n"
                  "error: unknown command ,frobnicate (,help lists the commands)\n"), f"stderr: {err!r}")


main(test)

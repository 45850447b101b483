"""Errors print one line with the entry and line they come from (red on a colour terminal, plain with NO_COLOR or
TERM=dumb) and the session goes on with its definitions; (exit n) ends it."""
from pty_harness import Repl, main, check, CTRL_D

RED = "\x1b[31m"


def session(kiln, env):
    r = Repl(kiln, env=env)
    try:
        r.expect(r"kiln> ")
        r.send("(define keep 7)\n")
        r.expect(r"\nkiln> ")
        r.send("(car 5)\n")
        r.expect(r"\n<repl-2>:1:1: error: car: argument 1 must be a pair, got 5\n")
        r.expect(r"kiln> ")
        r.send(",bt\n")
        r.expect(r"\n<repl-2>:1:1: error: car: argument 1 must be a pair, got 5\n  at top level \(<repl-2>:1:1\)\n")
        r.expect(r"kiln> ")
        r.send("(* keep 6)\n")
        r.expect(r"\n42\n")
        r.expect(r"kiln> ")
        r.send("(undefined-thing)\n")
        line = r.expect(r"\n([^\n]*error: [^\n]*)\n").group(1)
        check("undefined-thing" in line, f"the error names the unbound variable: {line!r}")
        r.expect(r"kiln> ")
        r.send("(exit 3)\n")
        code = r.wait_exit()
        check(code == 3, f"(exit 3) ends the REPL with status 3, got {code}")
        return r.raw.decode("utf-8", "replace")
    finally:
        r.close()


def test(kiln):
    raw = session(kiln, {})
    check(RED + "<repl-2>:1:1: error: car: argument 1 must be a pair, got 5" in raw, "errors are red on a terminal")
    for env in ({"NO_COLOR": "1"}, {"TERM": "dumb"}):
        raw = session(kiln, env)
        check(RED not in raw, f"no colour with {env}")


main(test)

"""Tab completion: user globals, builtins, special forms, commands after a
comma, and file names inside the string argument of load."""
import os
import tempfile

from pty_harness import Repl, main, check, TAB, CTRL_D


def test(kiln):
    tmp = tempfile.mkdtemp(prefix="kiln-complete-")
    with open(os.path.join(tmp, "sample-to-load.lisp"), "w") as f:
        f.write("(define loaded-value 99)\n")
    r = Repl(kiln, cwd=tmp)
    try:
        r.expect(r"kiln> ")
        r.send("(define my-unusual-global 5)\n")
        r.expect(r"\nkiln> ")
        # A unique prefix completes in place; Enter runs the completed text.
        r.send("my-unusual-g" + TAB)
        r.expect(r"my-unusual-global ")
        r.send("\n")
        r.expect(r"\n5\n")
        r.expect(r"kiln> ")

        r.send("(string-appe" + TAB)  # builtin
        r.expect(r"string-append ")
        r.send("\"a\" \"b\")\n")
        r.expect(r'\n"ab"\n')
        r.expect(r"kiln> ")

        r.send("(lambd" + TAB)  # special form
        r.expect(r"lambda ")
        r.send("(x) x)\n")
        r.expect(r"#<procedure>\n")
        r.expect(r"kiln> ")

        r.send(",descr" + TAB)  # command
        r.expect(r",describe ")
        r.send("my-unusual-global\n")
        r.expect(r"my-unusual-global: variable\n")
        r.expect(r"kiln> ")

        # File names inside the string after load; the closing quote is added.
        r.send('(load "sample-to' + TAB)
        r.expect(r'sample-to-load\.lisp"')
        r.send(")\n")
        r.expect(r"\nkiln> ")
        r.send(",load \"sample-t" + TAB)
        r.expect(r'sample-to-load\.lisp"')
        r.send("\n")
        r.expect(r"\nkiln> ")
        r.send("loaded-value\n")
        r.expect(r"\n99\n")
        r.expect(r"kiln> ")

        # Several matches: a second Tab lists them.
        r.send("(define my-unusual-second 6)\n")
        r.expect(r"\nkiln> ")
        r.send("my-unusual-" + TAB + TAB)
        r.expect(r"my-unusual-global\s+my-unusual-second")
        r.send("s" + TAB + "\n")
        r.expect(r"\n6\n")
        r.expect(r"kiln> ")
        r.send(CTRL_D)
        check(r.wait_exit() == 0, "Ctrl-D should exit 0")
    finally:
        r.close()


main(test)

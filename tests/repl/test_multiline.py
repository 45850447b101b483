"""Multi-line entries: continuation prompt while a bracket or string is open,
an unmatched ')' reported at once, a pasted block of several forms, multiple
values one per line."""
from pty_harness import Repl, main, check


def test(kiln):
    r = Repl(kiln)
    try:
        r.expect(r"kiln> ")
        r.send("(define (sq x)\n")
        r.expect(r"\n  \.\.\.> ")
        r.send("  (* x x))\n")
        r.expect(r"\nkiln> ")
        r.send("(sq 7)\n")
        r.expect(r"\n49\n")
        r.expect(r"kiln> ")

        # An open string continues too, and the newline is part of it.
        r.send('"abc\n')
        r.expect(r"\n  \.\.\.> ")
        r.send('def"\n')
        r.expect(r'\n"abc\\ndef"\n')
        r.expect(r"kiln> ")

        # Brackets inside block comments, character literals and |symbols| do
        # not count; an open block comment continues the entry.
        r.send("#| a block comment, no bracket here\n")
        r.expect(r"\n  \.\.\.> ")
        r.send(" still |# (list #\\( '|a ) b|)\n")
        r.expect(r"\n\(#\\\( \|a \) b\|\)\n")
        r.expect(r"kiln> ")

        # An unmatched ')' is reported immediately, not after more input.
        r.send("(+ 1 2))\n")
        r.expect(r"\n3\n")
        r.expect(r"error: unexpected '\)'\n")
        r.expect(r"kiln> ")

        # A pasted block: several forms, one spanning lines.
        r.send("(define a 10)\n(define b 32)\n(+ a\n   b)\n")
        r.expect(r"\n42\n")
        r.expect(r"kiln> ")
        # The same through a terminal's bracketed paste: readline inserts the
        # whole block as one line with newlines in it, and Enter runs it all.
        r.send("\x1b[200~(define p1 1)\n(define p2\n  2)\n(+ p1 p2 40)\n\x1b[201~")
        r.expect(r"\(\+ p1 p2 40\)")
        r.send("\n")
        r.expect(r"\n43\n")
        r.expect(r"kiln> ")
        # Several forms on one line are all evaluated, in order.
        r.send("(define c 1) (+ c 1) (+ c 2)\n")
        r.expect(r"\n2\n3\n")
        r.expect(r"kiln> ")

        r.send("(values 1 \"two\" #\\3)\n")
        r.expect(r'\n1\n"two"\n#\\3\n')
        r.expect(r"kiln> ")
        r.send("(if #f #f)\n")
        r.expect(r"\nkiln> ")  # the unspecified value echoes nothing
        r.send("\x04")
        check(r.wait_exit() == 0, "Ctrl-D should exit 0")
    finally:
        r.close()


main(test)

"""Ctrl-C: interrupts a running evaluation (an endless loop) and returns to the
prompt with definitions intact; at the prompt it throws the line away (also
a half-typed multi-line entry); Ctrl-D exits 0."""
from pty_harness import Repl, main, check, CTRL_C, CTRL_D


def test(kiln):
    r = Repl(kiln)
    try:
        r.expect(r"kiln> ")
        r.send("(define kept 17)\n")
        r.expect(r"\nkiln> ")
        r.send("(let loop () (loop))\n")
        # Nothing comes back while the loop runs.
        check("kiln> " not in r.quiet_for(0.5), "an endless loop should not return to the prompt")
        r.send(CTRL_C)
        r.expect(r"interrupted\n")
        r.expect(r"kiln> ")
        r.send("kept\n")
        r.expect(r"\n17\n")

        # A loop through a named procedure's tail calls, interrupted twice in a row.
        for _ in range(2):
            r.expect(r"kiln> ")
            r.send("(define (count n) (if (= n -1) 0 (count (+ n 1)))) (count 0)\n")
            r.quiet_for(0.3)
            r.send(CTRL_C)
            r.expect(r"interrupted\n")
        # A loop of tensor operations: the running matmul finishes, then the
        # loop notices the interrupt at its next call.
        r.expect(r"kiln> ")
        r.send("(define m (ones '(120 120))) (let loop () (matmul m m) (loop))\n")
        r.quiet_for(0.3)
        r.send(CTRL_C)
        r.expect(r"interrupted\n")
        r.expect(r"kiln> ")
        r.send("(+ kept 1)\n")
        r.expect(r"\n18\n")

        # Ctrl-C at the prompt discards the partial line...
        r.expect(r"kiln> ")
        r.send("(this is never evaluated")
        r.expect(r"never evaluated")
        r.send(CTRL_C)
        r.expect(r"\^C\n")
        r.expect(r"kiln> ")
        r.send("(+ 2 3)\n")
        r.expect(r"\n5\n")
        # ...and a pending multi-line entry.
        r.expect(r"kiln> ")
        r.send("(+ 100\n")
        r.expect(r"\.\.\.> ")
        r.send(CTRL_C)
        r.expect(r"kiln> ")
        r.send("(+ 4 5)\n")
        r.expect(r"\n9\n")
        r.expect(r"kiln> ")
        r.send(CTRL_D)
        check(r.wait_exit() == 0, "Ctrl-D should exit 0")
    finally:
        r.close()


main(test)

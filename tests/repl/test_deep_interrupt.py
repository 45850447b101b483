"""Ctrl-C at the bottom of a deep recursion (two million frames, the default
stack) returns to the prompt promptly: the interrupt reaches the REPL by a jump
over the frames (runtime/jump_unwind.h), not by unwinding them one by one
(about two microseconds each, seconds on a loaded machine). The after-thunk of
a dynamic-wind around the recursion runs, and an error or overflow at depth is
reported the same way with the REPL's backtrace."""
import time

from pty_harness import Repl, main, check, CTRL_C, CTRL_D

# Ten seconds from Ctrl-C to "interrupted": it comes at once, the margin is for
# a machine busy with other work. (Frame by frame, two million frames took
# 35 s on a loaded machine.)
ANSWER = 10


def is_asan_build(kiln):
    with open(kiln, "rb") as f:
        return b"__asan_init" in f.read()


def test(kiln):
    # Under AddressSanitizer the stack is 60 MiB (runtime/big_stack.cpp) and a
    # frame at -O1 with its redzones is several times larger: 100 000 overflowed.
    depth = 20000 if is_asan_build(kiln) else 2000000
    r = Repl(kiln)
    try:
        r.expect(r"kiln> ")
        r.send("(define kept 17) (define (down n) (if (= n 0) (begin (display \"bottom\") (newline) "
               "(let loop () (loop))) (+ 1 (down (- n 1)))))\n")
        r.expect(r"kiln> ")
        r.send("(dynamic-wind (lambda () #f) (lambda () (down " + str(depth) + ")) "
               "(lambda () (display \"after\") (newline)))\n")
        # Reaching the bottom takes a few seconds on a busy machine.
        r.expect(r"bottom\r?\n", timeout=120)
        r.quiet_for(0.3)
        start = time.monotonic()
        r.send(CTRL_C)
        r.expect(r"after\r?\n", timeout=ANSWER)
        r.expect(r"interrupted\r?\n", timeout=ANSWER)
        took = time.monotonic() - start
        check(took < ANSWER, f"Ctrl-C at depth answered after {took:.1f} s")
        r.expect(r"kiln> ")
        r.send("kept\n")
        r.expect(r"\n17\r?\n")

        # An error two million frames down: the message and ten frames of
        # backtrace, and the REPL goes on.
        r.expect(r"kiln> ")
        r.send("(define (fail n) (if (= n 0) (car 5) (+ 1 (fail (- n 1))))) (fail " + str(depth) + ")\n")
        r.expect(r"car: argument 1 must be a pair, got 5", timeout=120)
        r.expect(r"kiln> ")
        r.send("(+ kept 1)\n")
        r.expect(r"\n18\r?\n")
        r.expect(r"kiln> ")
        r.send(CTRL_D)
        check(r.wait_exit() == 0, "Ctrl-D should exit 0")
    finally:
        r.close()


main(test)

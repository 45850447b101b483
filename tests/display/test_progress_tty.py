"""with-progress on a terminal and off one.

With stderr on a pseudo-terminal (stdout a pipe), the bar is drawn on stderr only:
each draw starts with '\\r', redraws come at most 10 times a second, the last draw
shows the final count and status and is followed by a newline, lines fit the
terminal's width, and when PROC raises the line is finished before the error
report. With stderr a pipe nothing at all is written there.

Every read has a deadline and the child is killed on failure, so the test never
hangs. Usage: test_progress_tty.py PATH-TO-KILN
"""
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time

PROGRAM = r"""
(define (busy-wait micros)
  (let ((end (+ (current-jiffy) micros)))
    (let loop () (if (< (current-jiffy) end) (loop)))))
(define result
  (with-progress 20 "train"
    (lambda (tick)
      (let loop ((i 0))
        (if (< i 20)
            (begin (busy-wait 40000) (tick (/ 1.0 (+ i 1))) (loop (+ i 1)))))
      'done)))
(display result)
(newline)
"""

FAILING = r"""
(with-progress 10 "boom" (lambda (tick) (tick) (car '())))
"""


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def write_program(text):
    path = os.path.join(tempfile.mkdtemp(prefix="kiln-progress-"), "prog.lisp")
    with open(path, "w") as f:
        f.write(text)
    return path


def run_on_terminal(kiln, program, columns=100, timeout=30):
    """Runs kiln with stderr on a new pty; returns (status, stderr bytes, stdout bytes, seconds)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    start = time.monotonic()
    p = subprocess.Popen([kiln, write_program(program)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    err = b""
    deadline = start + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"kiln did not finish in {timeout} s; stderr so far: {err!r}")
            ready, _, _ = select.select([master], [], [], min(left, 0.2))
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every writer has closed the terminal
                    break
                if not chunk:
                    break
                err += chunk
            elif p.poll() is not None:
                break
        out = p.communicate(timeout=max(1, deadline - time.monotonic()))[0]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(master)
    return p.returncode, err, out, time.monotonic() - start


def test(kiln):
    status, err, out, seconds = run_on_terminal(kiln, PROGRAM)
    check(status == 0, f"status {status}; stderr {err!r}")
    check(out == b"done\n", f"stdout holds only the result: {out!r}")
    text = err.decode("latin-1")
    check(text.startswith("\rtrain ["), f"the bar is drawn from the start, after '\\r': {text!r}")
    check(text.endswith("\n"), f"the line is finished with a newline: {text!r}")
    draws = [d for d in text.rstrip("\r\n").split("\r") if d]
    check(len(draws) >= 3, f"a 0.8 s loop is redrawn several times, got {len(draws)}: {text!r}")
    # At most 10 a second, plus the first and the final draw.
    check(len(draws) <= 10 * seconds + 2, f"{len(draws)} draws in {seconds:.2f} s: {text!r}")
    for d in draws:
        check(re.match(r"train \[[#-]{24}\] +\d+/20  ", d), f"draw {d!r}")
        check(len(d) <= 99, f"a draw wider than the terminal: {d!r}")
    last = draws[-1].rstrip()
    check(re.match(r"train \[#{24}\]  20/20  [0-9.]+ it/s  0:0\d  0\.05$", last), f"final draw {last!r}")
    counts = [int(re.search(r"(\d+)/20", d).group(1)) for d in draws]
    check(counts == sorted(counts), f"the count only grows: {counts}")
    check("<" in draws[1], f"an ETA while running: {draws[1]!r}")

    # A narrow terminal: every draw is cut to one column less than its width.
    status, err, out, _ = run_on_terminal(kiln, PROGRAM, columns=30)
    draws = [d for d in err.decode("latin-1").rstrip("\r\n").split("\r") if d]
    check(status == 0 and draws, f"narrow: status {status}, {err!r}")
    check(all(len(d) <= 29 for d in draws), f"narrow terminal: {draws!r}")

    # PROC raises: the bar's line ends before the error report starts.
    status, err, out, _ = run_on_terminal(kiln, FAILING)
    text = err.decode("latin-1")
    check(status != 0, f"the error reaches the top level: status {status}")
    m = re.search(r"\rboom \[[#-]{24}\]  +1/10[^\r\n]*\r?\n[^\r\n]*error: car: argument 1 must be a pair", text)
    check(m, f"the line is finished before the error report: {text!r}")

    # Off a terminal nothing is written on stderr, and the result is the same.
    p = subprocess.run([kiln, write_program(PROGRAM)], stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=60)
    check(p.returncode == 0 and p.stdout == b"done\n", f"plain run: {p.returncode} {p.stdout!r}")
    check(p.stderr == b"", f"plain run writes nothing on stderr: {p.stderr!r}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        test(os.path.abspath(sys.argv[1]))
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    print("PASS")

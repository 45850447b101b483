"""Persistent history: a second session recalls the first one's entries, a
multi-line entry is one history entry, and the default path under
$XDG_STATE_HOME (or ~/.local/state) is created as needed."""
import os
import tempfile

from pty_harness import Repl, main, check, UP, CTRL_D


def one_entry_session(kiln, env):
    """A session that evaluates (* 6 7) once and exits with Ctrl-D."""
    r = Repl(kiln, env=env)
    try:
        r.expect(r"kiln> ")
        r.send("(* 6 7)\n")
        r.expect(r"\n42\n")
        r.expect(r"kiln> ")
        r.send(CTRL_D)
        r.wait_exit()
    finally:
        r.close()


def test(kiln):
    tmp = tempfile.mkdtemp(prefix="kiln-history-")
    hist = os.path.join(tmp, "hist")

    first = Repl(kiln, histfile=hist)
    try:
        first.expect(r"kiln> ")
        first.send("(define from-first-session 41)\n")
        first.expect(r"\nkiln> ")
        first.send("(+ from-first-session\n")
        first.expect(r"\.\.\.> ")
        first.send("   1)\n")
        first.expect(r"\n42\n")
        first.expect(r"kiln> ")  # keys typed during an evaluation meet a cooked terminal
        first.send(CTRL_D)
        check(first.wait_exit() == 0, "first session should exit 0")
    finally:
        first.close()

    with open(hist) as f:
        lines = f.read().splitlines()
    check(lines == ["(define from-first-session 41)", "(+ from-first-session\\n   1)"],
          f"history file holds one line per entry, got {lines!r}")

    second = Repl(kiln, histfile=hist)
    try:
        second.expect(r"kiln> ")
        # The definition is not carried over, only the text: re-run it from history.
        second.send(UP + UP)
        second.expect(r"\(define from-first-session 41\)")
        second.send("\n")
        second.expect(r"\nkiln> ")
        # Up twice again: past the define just re-entered to the multi-line
        # entry, recalled and run as a whole.
        second.send(UP + UP + "\n")
        second.expect(r"\n42\n")
        second.expect(r"kiln> ")
        second.send(CTRL_D)
        check(second.wait_exit() == 0, "second session should exit 0")
    finally:
        second.close()
    with open(hist) as f:
        lines = f.read().splitlines()
    check(len(lines) == 4, f"the second session appends its two entries, got {lines!r}")

    # Default locations: directories are created.
    state = os.path.join(tmp, "state")
    one_entry_session(kiln, {"KILN_HISTFILE": None, "XDG_STATE_HOME": state})
    check(os.path.isfile(os.path.join(state, "kiln", "history")), "XDG_STATE_HOME/kiln/history created")

    home = os.path.join(tmp, "home")
    one_entry_session(kiln, {"KILN_HISTFILE": None, "XDG_STATE_HOME": None, "HOME": home})
    path = os.path.join(home, ".local", "state", "kiln", "history")
    check(os.path.isfile(path), "~/.local/state/kiln/history created")
    with open(path) as f:
        check(f.read() == "(* 6 7)\n", "default history file content")


main(test)

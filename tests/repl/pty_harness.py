"""pty_harness.py — drive the kiln REPL through a pseudo-terminal.

Invariant: every wait polls the terminal output against a pattern with a
deadline (never a bare sleep), so the tests pass on a loaded machine and fail
with the transcript when the REPL does not answer. Each session gets a fresh
KILN_HISTFILE under a temporary directory unless the test passes its own
environment, so the user's real history is never read or written.
"""
import os
import pty
import re
import select
import signal
import struct
import sys
import tempfile
import termios
import fcntl
import time

ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")

CTRL_C = "\x03"
CTRL_D = "\x04"
UP = "\x1b[A"
TAB = "\t"


class Failure(Exception):
    pass


class Repl:
    def __init__(self, kiln, env=None, args=("-q",), cwd=None, histfile=None):
        self.tmp = tempfile.mkdtemp(prefix="kiln-repl-test-")
        full_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.tmp,
            "TERM": "xterm",
            "KILN_HISTFILE": histfile or os.path.join(self.tmp, "history"),
            "INPUTRC": "/dev/null",  # the user's key bindings must not change the test
        }
        # Sanitizer settings of the run (make asan) must reach the REPL too.
        for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if name in os.environ:
                full_env[name] = os.environ[name]
        if env:
            full_env.update(env)
        full_env = {k: v for k, v in full_env.items() if v is not None}
        self.histfile = full_env.get("KILN_HISTFILE")
        pid, fd = pty.fork()
        if pid == 0:
            if cwd:
                os.chdir(cwd)
            os.execve(kiln, [kiln, *args], full_env)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
        self.raw = b""  # everything the REPL wrote, escape codes included
        self.pos = 0  # how far expect() has consumed the cleaned text
        self.status = None

    def text(self):
        """The output with escape sequences and carriage returns removed."""
        raw = self.raw
        cut = raw.rfind(b"\x1b")
        if cut >= 0 and not ANSI.match(raw, cut):
            raw = raw[:cut]  # an escape sequence still arriving: wait for the rest
        return ANSI.sub(b"", raw).replace(b"\r", b"").decode("utf-8", "replace")

    def _read(self, timeout):
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the child has closed the terminal
            return None
        if not chunk:
            return None
        self.raw += chunk
        return True

    def send(self, keys):
        os.write(self.fd, keys.encode())

    def expect(self, pattern, timeout=15):
        """Waits until `pattern` (a regex) appears after the previous match."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.text(), self.pos)
            if m:
                self.pos = m.end()
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"timed out waiting for {pattern!r}; output so far:\n{self.text()}")
            if self._read(min(left, 0.2)) is None:
                m = rx.search(self.text(), self.pos)
                if m:
                    self.pos = m.end()
                    return m
                raise Failure(f"kiln closed the terminal before {pattern!r}; output:\n{self.text()}")

    def quiet_for(self, seconds):
        """Collects output for `seconds` (used only to prove something did NOT appear)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self._read(deadline - time.monotonic()) is None:
                break
        return self.text()[self.pos:]

    def exited(self):
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
        return self.status is not None

    def wait_exit(self, timeout=15):
        deadline = time.monotonic() + timeout
        while not self.exited():
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                raise Failure(f"kiln did not exit; output:\n{self.text()}")
            self._read(0.1)
        while self._read(0.05):
            pass
        return os.waitstatus_to_exitcode(self.status)

    def close(self):
        if not self.exited():
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def check(condition, message):
    if not condition:
        raise Failure(message)


def main(test):
    """Runs test(kiln_path); exit status 0 on success, 1 with the reason."""
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} PATH-TO-KILN", file=sys.stderr)
        sys.exit(2)
    try:
        test(os.path.abspath(sys.argv[1]))
    except Failure as f:
        print(f"FAIL: {f}")
        sys.exit(1)
    print("PASS")


SKIP = 77  # the exit status CMakeLists.txt gives ctest as SKIP_RETURN_CODE


def have_pty():
    try:
        master, slave = os.openpty()
    except OSError:
        return False
    os.close(master)
    os.close(slave)
    return True


def run_cases(cases):
    """Runs each case (a function of the kiln path) on its own and prints one
    line per case: PASS NAME, or FAIL NAME (FILE:LINE) with the check of the
    test file that failed and the reason. Exits 1 when any failed, SKIP when no
    pseudo-terminal can be opened."""
    import traceback
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} PATH-TO-KILN", file=sys.stderr)
        sys.exit(2)
    if not have_pty():
        print("SKIP: no pseudo-terminal can be opened here")
        sys.exit(SKIP)
    kiln = os.path.abspath(sys.argv[1])
    test_file = os.path.abspath(sys.modules["__main__"].__file__)
    failed = []
    for case in cases:
        started = time.monotonic()
        try:
            case(kiln)
        except Exception as e:  # a broken case must not hide the others
            frames = [f for f in traceback.extract_tb(e.__traceback__)
                      if os.path.abspath(f.filename) == test_file]
            # The outermost frame in the test file is the line of the case itself.
            where = f"{os.path.basename(test_file)}:{frames[0].lineno}" if frames else "?"
            reason = str(e) if isinstance(e, Failure) else traceback.format_exc()
            print(f"FAIL {case.__name__} ({where}): {reason}")
            failed.append(case.__name__)
            continue
        print(f"PASS {case.__name__} {int((time.monotonic() - started) * 1000)} ms")
    print(f"{len(cases) - len(failed)} passed, {len(failed)} failed" +
          (f": {' '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


def run_plain(kiln, args, stdin, cwd=None):
    """Runs kiln with piped stdin (plain mode); returns (status, stdout, stderr)."""
    import subprocess
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm",
           "KILN_HISTFILE": os.path.join(tempfile.mkdtemp(prefix="kiln-plain-"), "history")}
    p = subprocess.run([kiln, *args], input=stdin.encode(), capture_output=True, timeout=60,
                       env=env, cwd=cwd)
    return p.returncode, p.stdout.decode(), p.stderr.decode()

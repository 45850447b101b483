#!/usr/bin/env bash
# Deep recursion at default settings (docs/language.md, "Deep recursion"): the
# stack is a quarter of the memory the process may use, with no upper bound, and
# leaving a deep recursion costs no time per frame (runtime/jump_unwind.h).
# `ulimit -v` (8 GiB) makes the default 1 GiB here (an eighth of an address-space
# limit, which the reservation counts against in full), about 2.5 million frames:
# - a runaway recursion ends with `stack overflow`, its backtrace, status 1,
#   deeper than the old 512 MiB default held (about 1.2 million frames), and a
#   dynamic-wind after-thunk around it runs;
# - Ctrl-C at the bottom of 1.5 million frames is answered with `interrupted`
#   and status 130 within 10 s, after-thunk run (frame by frame, two million
#   frames took 35 s on a loaded machine);
# - (exit 3) there ends the process with status 3, after-thunk run.
# Time bounds are about responsiveness, with margins for a busy machine:
# reaching the bottom is the program's own recursion (a few seconds of CPU).
#
# usage: deep_recursion.sh KILN_BINARY REPO_DIR
set -uo pipefail
KILN=$(realpath "$1")
if ldd "$KILN" 2>/dev/null | grep libasan >/dev/null; then
  echo "skipped: AddressSanitizer reserves terabytes of address space (no ulimit -v fits) and its stack is 60 MiB"
  exit 77
fi
python3 - "$KILN" <<'PY'
import os, resource, shutil, signal, subprocess, sys, tempfile, time
kiln = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="kiln-deep-")
env = {k: v for k, v in os.environ.items() if k != "KILN_STACK_MB"}
env["KILN_CACHE_DIR"] = "off"
failures = 0


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


def start(name, program):
    path = os.path.join(tmp, name + ".lisp")
    with open(path, "w") as f:
        f.write(program)
    return subprocess.Popen([kiln, path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, preexec_fn=limit)


def fail(name, why):
    global failures
    failures += 1
    print(f"FAIL {name}: {why}")


# 1. Overflow of the default stack.
t0 = time.monotonic()
p = start("overflow", """
(define deepest 0)
(define (r n) (set! deepest n) (+ 1 (r (+ n 1))))
(dynamic-wind (lambda () #f) (lambda () (r 0)) (lambda () (display deepest) (newline)))
""")
try:
    out, err = p.communicate(timeout=300)
    took = time.monotonic() - t0
    lines = err.decode(errors="replace").splitlines()
    depth = int(out.decode().strip() or "0")
    if p.returncode != 1 or not lines or not lines[0].endswith("error: stack overflow") \
            or lines[1:] != [lines[1]] * 10 or not lines[1].startswith("  at r ("):
        fail("overflow", f"status {p.returncode}, stderr {err[:400]!r}")
    elif depth < 2000000:
        fail("overflow", f"only {depth} frames deep with a 1 GiB stack")
    else:
        print(f"PASS overflow: {depth} frames, reported after {took:.1f} s")
except subprocess.TimeoutExpired:
    p.kill()
    p.communicate()
    fail("overflow", "no answer within 300 s")

# 2. and 3. Ctrl-C, and exit, at the bottom of 1.5 million frames.
DOWN = """
(define (down n)
  (if (= n 0)
      (begin (display "bottom" (current-error-port)) (newline (current-error-port)) (BOTTOM))
      (+ 1 (down (- n 1)))))
(dynamic-wind (lambda () #f) (lambda () (down 1500000)) (lambda () (display "after") (newline)))
"""
for name, bottom, status, message in (("interrupt", "let loop () (loop)", 130, b"interrupted"),
                                      ("exit", "exit 3", 3, b"")):
    p = start(name, DOWN.replace("BOTTOM", bottom))
    # Reaching the bottom takes seconds on a busy machine.
    line = p.stderr.readline()
    if line.strip() != b"bottom":
        p.kill()
        p.communicate()
        fail(name, f"the recursion did not reach the bottom: {line[:300]!r}")
        continue
    t0 = time.monotonic()
    if name == "interrupt":
        p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=10)
        took = time.monotonic() - t0
        if p.returncode != status or out != b"after\n" or err.strip() != message:
            fail(name, f"status {p.returncode}, stdout {out[:200]!r}, stderr {err[:300]!r}")
        else:
            print(f"PASS {name}: ended {took:.1f} s after the bottom was reached")
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        fail(name, "still running 10 s after the bottom was reached")
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
PY

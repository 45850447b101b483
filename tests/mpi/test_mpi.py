#!/usr/bin/env python3
"""Kiln under mpirun (SPEC §18, docs/distributed.md): every mpi-* procedure on 1, 2
and 3 processes checked bit for bit against the rank-order reduction, reruns
bit-identical, trees that differ raising on every process, a process that
raises, exits or is killed taking the others down with its rank named, within
seconds, and a process that ends normally (or is interrupted) while the others
wait in an exchange making them fail with its rank named (tests/mpi/ending.lisp). Every run has a timeout. Exits 77 (skipped) without mpirun; a kiln built
without MPI must say so from every procedure instead."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

KILN = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = shutil.which("mpirun")
TIMEOUT = 120
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(cmd, timeout=TIMEOUT):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail(f"timed out after {timeout} s (a hang): {' '.join(cmd)}")
        return None, timeout
    return p, time.monotonic() - t0


def mpirun(n, *args, timeout=TIMEOUT):
    return run([MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(n), *args], timeout)


def expect_failed_job(n, what, args, needles, within=20):
    """The job of `n` processes fails, its output holds every needle (a string, or a
    compiled pattern), and it ends within `within` seconds: never a hang."""
    p, secs = mpirun(n, *args, timeout=60)
    if p is None:
        return
    text = p.stdout + p.stderr
    found = all(x.search(text) if hasattr(x, "search") else x in text for x in needles)
    if p.returncode == 0 or not found or secs > within:
        fail(f"{n} processes, {what}: status {p.returncode} after {secs:.1f} s\n{text}")


version = subprocess.run([KILN, "--version"], capture_output=True, text=True).stdout
if "without MPI" in version:
    for expr in ["(mpi-rank)", "(mpi-size)", "(mpi-barrier)", "(mpi-allreduce 1.0)", "(mpi-broadcast 1.0 0)",
                 "(mpi-shard 3)"]:
        p, _ = run([KILN, "-e", expr])
        name = expr[1:].split()[0].rstrip(")")
        if p is None or p.returncode != 1 or f"{name}: MPI is not built in" not in p.stderr:
            fail(f"{expr} without MPI: {p and p.stderr!r}")
    print("kiln is built without MPI: checked that every procedure says so")
    sys.exit(1 if failures else 0)
if "with MPI (" not in version:
    fail(f"kiln --version does not say whether MPI is built in: {version!r}")
if not MPIRUN:
    print("SKIP: mpirun not found (Debian: openmpi-bin)")
    sys.exit(77)

procedures = os.path.join(HERE, "procedures.lisp")
errors = os.path.join(HERE, "errors.lisp")


def check_procedures(n, p):
    if p is None:
        return None
    if p.returncode != 0:
        fail(f"procedures.lisp on {n} processes: status {p.returncode}\n{p.stdout}\n{p.stderr}")
        return None
    lines = p.stdout.splitlines()
    passes = {}
    bits = {}
    for line in lines:
        m = re.match(r"rank (\d+): (PASS|FAIL) (.*)", line)
        if m:
            if m.group(2) == "FAIL":
                fail(f"{n} processes, rank {m.group(1)}: {m.group(3)}")
            passes.setdefault(m.group(1), []).append(m.group(3))
        m = re.match(r"rank (\d+): bits (.*)", line)
        if m:
            bits[m.group(1)] = m.group(2)
    if sorted(passes) != [str(r) for r in range(n)] or len(set(map(tuple, passes.values()))) != 1:
        fail(f"{n} processes: not every rank ran every check: {passes}")
    elif len(next(iter(passes.values()))) != 22 + n:  # 22 checks and one broadcast per root
        fail(f"{n} processes: only {len(next(iter(passes.values())))} checks ran")
    if len(set(bits.values())) != 1 or len(bits) != n:
        fail(f"{n} processes: the ranks' bits differ: {bits}")
    return bits.get("0")


ENDING = os.path.join(HERE, "ending.lisp")
LEFT = "the process of rank 1 finished its program while this process waits for it in an exchange"


def check_endings(n):
    """A process that ends normally (or is interrupted) while the others wait in an
    exchange: the others fail naming it within seconds, never wait forever."""
    for scenario, who in (("allreduce", "mpi-allreduce"), ("barrier", "mpi-barrier"),
                          ("broadcast", "mpi-broadcast"), ("jit-step", "mpi-allreduce")):
        # Every waiting process raises it; the first to end aborts the job, which may
        # kill the others before they print, and may even lose its own last lines on
        # their way through mpirun: then OpenMPI's note that a waiting rank (never
        # rank 1, which ended normally) called MPI_Abort is the evidence.
        expect_failed_job(n, f"rank 1 ends while the others wait in {scenario}", [KILN, ENDING, scenario],
                          [re.compile(re.escape(f"error: {who}: {LEFT}") + "|MPI_ABORT was invoked on rank [02] ")])
    # The waiting processes catch it: later exchanges are refused at once (no MPI
    # call, no wait), and every process then ends normally.
    p, secs = mpirun(n, KILN, ENDING, "caught", timeout=60)
    if p is not None:
        later = "no exchange is possible after an earlier one failed half-way on this process: " \
                "the process of rank 1 finished its program while this process waited for it in an exchange"
        for r in [0] + list(range(2, n)):
            for line in (f"rank {r}: mpi-allreduce: {LEFT} (every process must make the same mpi-* calls "
                         "in the same order)", f"rank {r}: mpi-allreduce: {later}",
                         f"rank {r}: mpi-barrier: {later}", f"rank {r}: ended normally"):
                if line not in p.stdout.splitlines():
                    fail(f"{n} processes, caught: no line {line!r}\n{p.stdout}{p.stderr}")
        if p.returncode != 0 or secs > 20:
            fail(f"{n} processes, caught: status {p.returncode} after {secs:.1f} s\n{p.stderr}")
    # Rank 1 raises in the middle of a training loop whose jitted step exchanges.
    expect_failed_job(n, "rank 1 raises mid-training", [KILN, ENDING, "train-error"],
                      ["training failed on this process 3", "the process of rank 1 failed (status 1)"])
    # Rank 1 returns normally before it ever uses MPI: the others do not wait for it.
    expect_failed_job(n, "rank 1 exits 0 at once",
                      [KILN, "-e", '(when (equal? (get-environment-variable "OMPI_COMM_WORLD_RANK") "1") (exit 0))',
                       "-e", "(mpi-allreduce 1.0)"], [f"error: mpi-allreduce: {LEFT}"])
    # Ctrl-C (SIGINT) on rank 0 while it waits: uncaught, it stops every process;
    # inside a kernel's exchange it is the step's error, and later exchanges are refused.
    for scenario in ("interrupt", "interrupt-jit"):
        p, secs = interrupt_rank0(n, scenario)
        if p is None:
            continue
        if scenario == "interrupt":
            if p.returncode == 0 or "the process of rank 0 failed (status 130)" not in p.stderr or secs > 20:
                fail(f"{n} processes, Ctrl-C in an exchange: status {p.returncode} {secs:.1f} s after SIGINT\n"
                     f"{p.stdout}{p.stderr}")
        else:
            for line in ("rank 0: mpi-allreduce: interrupted (Ctrl-C) while waiting for the other processes in an "
                         "exchange", "rank 0: mpi-barrier: no exchange is possible after an earlier one failed "
                         "half-way on this process: interrupted (Ctrl-C) while waiting for the other processes in an "
                         "exchange", "rank 0: ended normally"):
                if line not in p.stdout.splitlines():
                    fail(f"{n} processes, Ctrl-C in a kernel's exchange: no line {line!r}\n{p.stdout}{p.stderr}")
            if p.returncode != 0 or secs > 30:
                fail(f"{n} processes, Ctrl-C in a kernel's exchange: status {p.returncode} {secs:.1f} s after "
                     f"SIGINT\n{p.stderr}")


def interrupt_rank0(n, scenario):
    """Runs ending.lisp SCENARIO; once rank 0 is about to wait, sends it SIGINT.
    Returns the finished process and the seconds from the signal to the end."""
    with tempfile.TemporaryDirectory() as tmp:
        pidfile, ready = os.path.join(tmp, "pid"), os.path.join(tmp, "ready")
        wrapper = f'[ "$OMPI_COMM_WORLD_RANK" = 0 ] && echo $$ > {pidfile}; exec "$0" "$@"'
        cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(n), "bash", "-c", wrapper, KILN,
               ENDING, scenario, ready]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(ready) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        if not os.path.exists(ready):
            proc.kill()
            out, err = proc.communicate()
            fail(f"{n} processes, {scenario}: rank 0 never got ready\n{out}{err}")
            return None, 0
        time.sleep(1)  # rank 0 is now in its exchange
        os.kill(int(open(pidfile).read()), signal.SIGINT)
        t0 = time.monotonic()
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            fail(f"{n} processes, {scenario}: still running 60 s after SIGINT (a hang)")
            return None, 0
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err), time.monotonic() - t0


# One process without a launcher: rank 0 of 1, every check still holds.
p, _ = run([KILN, procedures])
check_procedures(1, p)

for n in (2, 3):
    first = check_procedures(n, mpirun(n, KILN, procedures)[0])
    again = check_procedures(n, mpirun(n, KILN, procedures)[0])
    if first is not None and first != again:
        fail(f"{n} processes: a rerun gave other bits:\n{first}\n{again}")

    p, _ = mpirun(n, KILN, errors)
    if p is not None:
        out = p.stdout
        if p.returncode != 0:
            fail(f"errors.lisp on {n} processes: status {p.returncode}\n{p.stderr}")
        for r in range(n):
            for what in ("shape", "structure", "vector vs list", "named key", "reduction", "broadcast shape", "jit shape"):
                m = re.search(rf"^rank {r}: {what}: (.*)$", out, re.M)
                if not m or "differ across processes, checked before any data moved" not in m.group(1) \
                        or "rank 1 has" not in m.group(1):
                    fail(f"{n} processes, rank {r}, {what}: {m and m.group(1)!r}")
            if f"rank {r}: after: {float(n * (n + 1) // 2)}" not in out:
                fail(f"{n} processes, rank {r}: no correct exchange after the errors")
            expected = {
                "bad reduction": "mpi-allreduce: argument 2 must be 'sum, 'mean or 'max, got min",
                "bad leaf": 'mpi-allreduce: TREE, leaf 2: expected a number or a tensor, got "two"',
                "bad root": f"mpi-broadcast: ROOT must be a rank in [0, {n}), got {n}",
                "negative root": "mpi-broadcast: argument 2 must be a non-negative integer, got -1",
                "bad shard": "mpi-shard: argument 1 must be a non-negative integer, got -1",
                "broadcast in jit": "graph: 'mpi-broadcast' is not supported inside a traced function",
                "grad through max": "graph-grad: no gradient through mpi-allreduce 'max (only 'sum and 'mean)",
            }
            for what, msg in expected.items():
                if f"rank {r}: {what}: {msg}" not in out:
                    fail(f"{n} processes, rank {r}, {what}: expected {msg!r}")

    # Rank 1 raises while the others wait in an exchange: all end, rank 1 named.
    script = "(mpi-barrier) (when (= (mpi-rank) 1) (car '())) (mpi-allreduce 1.0) (mpi-barrier)"
    expect_failed_job(n, "rank 1 raises", [KILN, "-e", script],
                      ["car: argument 1 must be a pair", "the process of rank 1 failed"])
    # Rank 1 exits with a failure status before it ever uses MPI.
    expect_failed_job(n, "rank 1 exits 3",
                      [KILN, "-e", '(when (equal? (get-environment-variable "OMPI_COMM_WORLD_RANK") "1") (exit 3))',
                       "-e", "(mpi-allreduce 1.0)"], ["the process of rank 1 failed (status 3)"])
    # Rank 1 is killed (SIGKILL) while the others wait in an exchange.
    wrapper = ('if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then "$0" -e "(mpi-barrier)" -e "(let loop () (loop))" & '
               'k=$!; sleep 2; kill -9 $k; wait $k; exit $?; '
               'else exec "$0" -e "(mpi-barrier)" -e "(mpi-allreduce 1.0)"; fi')
    expect_failed_job(n, "rank 1 killed", ["bash", "-c", wrapper, KILN], [re.compile(r"rank 1|\[\[\d+,1\],1\]")],
                      within=25)
    check_endings(n)
    print(f"{n} processes: done")

# examples/digits_mpi.lisp: on 1, 2 and 3 processes the same accuracy and losses
# within 1e-12 of one process's (3 epochs; the data is python3-sklearn's).
DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "digits_mpi.lisp")
if os.path.exists(DIGITS):
    runs = {}
    for n in (1, 2, 3):
        p, _ = mpirun(n, KILN, EXAMPLE, DIGITS, "--epochs", "3", timeout=300)
        if p is None:
            continue
        if p.returncode != 0:
            fail(f"digits_mpi on {n} processes: status {p.returncode}\n{p.stderr}")
            continue
        losses = [float(x) for x in re.findall(r"mean loss (\S+)", p.stdout)]
        final = re.search(r"final training loss (\S+)", p.stdout)
        acc = re.search(r"test accuracy (\S+)", p.stdout)
        if len(losses) != 3 or not final or not acc:
            fail(f"digits_mpi on {n} processes printed {p.stdout!r}")
            continue
        runs[n] = (losses + [float(final.group(1))], acc.group(1))
    if 1 in runs:
        for n in (2, 3):
            if n in runs:
                worst = max(abs(a - b) for a, b in zip(runs[1][0], runs[n][0]))
                if worst > 1e-12 or runs[n][1] != runs[1][1]:
                    fail(f"digits_mpi: {n} processes differ from one: {runs[n]} vs {runs[1]}")
                else:
                    print(f"digits_mpi: {n} processes within {worst:.1e} of one, accuracy {runs[n][1]}")
else:
    print("digits_mpi: skipped (python3-sklearn's digits.csv.gz not found)")

print("FAILED" if failures else "all passed")
sys.exit(1 if failures else 0)

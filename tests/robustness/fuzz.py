#!/usr/bin/env python3
"""Robustness test: kiln must survive random, truncated and mutated programs.

usage: fuzz.py KILN_BINARY REPO_DIR

With a fixed seed, builds KILN_FUZZ_CASES programs (default 3000) from the
golden tests (tests/golden/**/*.lisp) and a few built-in snippets: truncated at
a random byte, with bytes or brackets deleted, duplicated or swapped, random
tokens inserted, slices of other programs spliced in, or plain token soup. Runs
`kiln CASE.lisp` on each (stdin /dev/null, a scratch cwd, KILN_FUZZ_TIMEOUT s,
default 10) and requires that every run

  * ends by itself, or when it loops forever in Lisp code, stops with
    "interrupted" on SIGINT (no hang in the runtime), and not by a signal
    (no crash, no abort),
  * exits with status 0 or 1, and
  * prints a message containing "error:" on stderr when the status is 1.

Programs whose text contains "exit" are skipped, since (exit n) may legally
produce any status. Failing programs are saved to KILN_FUZZ_SAVE (default
./robustness-failures) for reproduction with `kiln FILE`.

Knobs (environment): KILN_FUZZ_CASES, KILN_FUZZ_SEED (default 1),
KILN_FUZZ_JOBS (default 2), KILN_FUZZ_TIMEOUT, KILN_FUZZ_SAVE.
"""
import concurrent.futures
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# Snippets that reach error paths directly; also the insertable tokens.
TOKENS = [
    "(", ")", "[", "]", "\"", "'", "`", ",", ",@", "#(", "#\\", "#|", "|#", "#;", ".", "...",
    "#t", "#f", "#true", "0", "-1", "1.5e308", "-0.0", "+nan.0", "+inf.0", "1e999", ".5.",
    "9223372036854775807", "-9223372036854775808", "99999999999999999999", "#\\x41", "#\\nul",
    "\"\\x41;\"", "\"\\q\"", "\"\\x;\"", "|odd sym|", "#x", "#\\xZZ", "'()", "()", "[)", "(]",
    "(car '())", "(cdr 5)", "(vector-ref #(1) 5)", "(string-ref \"\" 0)", "(substring \"abc\" 2 1)",
    "(tensor '((1 2) (3)))", "(zeros '(0))", "(reshape (arange 6) '(4 -1))",
    "(matmul (ones '(2 3)) (ones '(2 3)))", "(tensor-add (ones '(2 3)) (ones '(4 3)))",
    "(graph-grad (lambda (x) (tensor-sum x)) (ones '(2 2)))", "(graph-ir (lambda (x) (* x x)))",
    "(lambda)", "(lambda x)", "(define)", "(define 5 6)", "(let ((x)) x)", "(let loop)",
    "(quote)", "(if)", "(set! undefined-var 1)", "(apply + 1)", "(apply + 1 '(2 . 3))",
    "(call/cc call/cc)", "(raise 'oops)", "(error \"boom\" 1 2)", "(raise-continuable 1)",
    "(define-syntax m (syntax-rules () ((_ x ...) (x ...))))", "(m)", "(m 1 2)",
    "(begin)", "(cond)", "(case)", "(do)", "(guard)", "(guard (e) (raise 1))",
    "(with-exception-handler (lambda (e) 0) (lambda () (raise 'x)))",
    "(dynamic-wind 1 2 3)", "(values)", "(call-with-values values)", "(string->symbol 5)",
    "(make-vector -1)", "(make-string -1)", "(list-tail '(1) 5)", "(expt 0 -1)", "(/ 1 0)",
    "(* 4611686018427387904 4)", "(+ 9223372036854775807 1)", "(exact +inf.0)", "(exact +nan.0)",
    "(integer->char -1)", "(integer->char 99999999)", "(number->string 1 1)",
    "(load \"no-such-file.lisp\")", "(open-input-file \"no-such-file\")",
    "(read (open-input-string \"(1 . )\"))", "(read (open-input-string \"#(1 . 2)\"))",
    "(eval '(car))", "(define (g n) (+ 1 (g n))) (g 0)",
    "(hash-table-ref (make-hash-table) 1)", "(sort '(3 1 2) 5)", "(string-append \"a\" 'b)",
    "(format \"~q\" 1)", "(format \"~a\")", "(vector-fill! #(1 2) 0)", "(list->string '(1))",
    "(save-model \"/nonexistent-dir/x\" 1)", "(load-model \"no-such-model\")",
    "(tensor-slice (ones '(3)) 0 2 1)", "(transpose (ones '(2 3)) '(0 0))", "(concat '() 0)",
]

MUTATIONS = ["truncate", "delete_byte", "duplicate_byte", "swap_bytes", "delete_bracket",
             "duplicate_bracket", "flip_bracket", "insert_token", "splice", "delete_range"]

BRACKETS = b"()[]\""
SANITIZER_MARKS = (b"AddressSanitizer", b"LeakSanitizer", b"runtime error:")


def mutate(rng, text, corpus):
    """Applies 1-4 random mutations to the bytes `text`."""
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(MUTATIONS)
        n = len(text)
        pos = rng.randrange(n + 1)
        if kind == "truncate" and n:
            text = text[:rng.randrange(n)]
        elif kind == "delete_byte" and n:
            pos = rng.randrange(n)
            text = text[:pos] + text[pos + 1:]
        elif kind == "duplicate_byte" and n:
            pos = rng.randrange(n)
            text = text[:pos + 1] + text[pos:]
        elif kind == "swap_bytes" and n > 1:
            pos = rng.randrange(n - 1)
            text = text[:pos] + text[pos + 1:pos + 2] + text[pos:pos + 1] + text[pos + 2:]
        elif kind in ("delete_bracket", "duplicate_bracket", "flip_bracket"):
            spots = [i for i, c in enumerate(text) if c in BRACKETS]
            if not spots:
                continue
            i = rng.choice(spots)
            if kind == "delete_bracket":
                text = text[:i] + text[i + 1:]
            elif kind == "duplicate_bracket":
                text = text[:i + 1] + text[i:]
            else:
                text = text[:i] + bytes([rng.choice(BRACKETS)]) + text[i + 1:]
        elif kind == "insert_token":
            token = rng.choice(TOKENS).encode()
            text = text[:pos] + b" " + token + b" " + text[pos:]
        elif kind == "splice" and corpus:
            other = rng.choice(corpus)
            a = rng.randrange(len(other) + 1)
            b = min(len(other), a + rng.randint(1, 200))
            text = text[:pos] + other[a:b] + text[pos:]
        elif kind == "delete_range" and n:
            a = rng.randrange(n)
            text = text[:a] + text[a + rng.randint(1, 40):]
    return text


def token_soup(rng):
    return " ".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 30))).encode()


def make_cases(rng, corpus, count):
    cases = []
    attempts = 0
    while len(cases) < count:
        attempts += 1
        if attempts > count * 20:
            sys.exit("fuzz.py: cannot build enough programs without the word 'exit'")
        if not corpus or rng.random() < 0.1:
            program = token_soup(rng)
        else:
            program = mutate(rng, rng.choice(corpus), corpus)
        if b"exit" in program:
            continue
        cases.append(program)
    return cases


def is_asan_build(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def run_one(kiln, path, cwd, env, timeout):
    """Returns (status or None, signal or None, timed_out, stderr bytes)."""
    proc = subprocess.Popen([kiln, path.name], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # A mutant may simply loop forever in Lisp (a `while` whose body was cut
        # away). Kiln answers Ctrl-C there with "interrupted" and status 130; a
        # hang inside the runtime would not, so only that counts as a hang.
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, None, True, b""
        if proc.returncode == 130 and b"interrupted" in err:
            return "interrupted", None, False, err
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything it left running
        except ProcessLookupError:
            pass
    if proc.returncode < 0:
        return None, -proc.returncode, False, err
    return proc.returncode, None, False, err


def cpu_seconds(kiln, source, cwd, env, limit):
    """CPU time of `kiln source` (killed after `limit` s of wall time: then inf)."""
    proc = subprocess.Popen([kiln, source.name], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    timer = threading.Timer(limit, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped
    timer.cancel()
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if os.WIFSIGNALED(status):
        return float("inf")
    return usage.ru_utime + usage.ru_stime


def quick_sources(kiln, sources, env, jobs, budget):
    """The golden files whose unmutated run takes at most `budget` CPU seconds.

    A mutation can multiply a loop count, so a slow test would make slow (not
    hung) mutants; those seeds are left out rather than raising the timeout.
    """
    def measure(path):
        return cpu_seconds(kiln, path, path.parent, env, budget * 10)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        times = list(pool.map(measure, sources))
    slow = [(p, t) for p, t in zip(sources, times) if t > budget]
    for p, t in slow:
        print(f"robustness: not mutating {p} ({t:.1f} s CPU unmutated)")
    return [p for p, t in zip(sources, times) if t <= budget]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fuzz.py KILN_BINARY REPO_DIR")
    kiln = os.path.abspath(sys.argv[1])
    repo = Path(sys.argv[2])
    count = int(os.environ.get("KILN_FUZZ_CASES", "3000"))
    seed = int(os.environ.get("KILN_FUZZ_SEED", "1"))
    jobs = int(os.environ.get("KILN_FUZZ_JOBS", "2"))
    timeout = float(os.environ.get("KILN_FUZZ_TIMEOUT", "10"))
    save_dir = Path(os.environ.get("KILN_FUZZ_SAVE", "robustness-failures")).absolute()

    scratch = Path(tempfile.mkdtemp(prefix="kiln-fuzz-"))
    env = dict(os.environ)
    env["KILN_CACHE_DIR"] = str(scratch / "kernel-cache")
    env.pop("KILN_GC_STRESS", None)
    asan = is_asan_build(kiln)
    if asan:
        # A sanitizer report must not pass for an ordinary status-1 error.
        for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
            env[var] = ":".join(filter(None, [env.get(var, ""), "exitcode=86"]))

    sources = sorted((repo / "tests" / "golden").rglob("*.lisp"))
    sources = [p for p in sources if b"exit" not in p.read_bytes()]
    sources = quick_sources(kiln, sources, env, jobs, timeout / 10)
    corpus = [p.read_bytes() for p in sources]
    corpus += [t.encode() for t in TOKENS if t.startswith("(")]
    rng = random.Random(seed)
    cases = make_cases(rng, corpus, count)

    def work(index):
        # One directory per case: programs may write files into their cwd.
        cwd = scratch / f"case{index}"
        cwd.mkdir()
        path = cwd / f"case{index}.lisp"
        path.write_bytes(cases[index])
        result = run_one(kiln, path, cwd, env, timeout)
        shutil.rmtree(cwd, ignore_errors=True)
        return result

    start = time.monotonic()
    print(f"robustness: {count} programs from {len(sources)} golden files, seed {seed}, "
          f"{jobs} jobs, timeout {timeout:g} s{' (ASan build)' if asan else ''}", flush=True)
    failures = []
    statuses = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for index, (status, sig, timed_out, err) in enumerate(pool.map(work, range(count))):
                if timed_out:
                    problem = f"no result within {timeout:g} s (hang?)"
                elif any(m in err for m in SANITIZER_MARKS):
                    problem = "sanitizer report"
                elif sig is not None:
                    problem = f"killed by signal {sig} ({signal.Signals(sig).name})"
                elif status not in (0, 1, "interrupted"):
                    problem = f"exit status {status}"
                elif status == 1 and b"error:" not in err:
                    problem = "status 1 without an 'error:' message on stderr"
                else:
                    problem = None
                statuses[status] = statuses.get(status, 0) + 1
                if problem:
                    failures.append((index, problem, err))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    elapsed = time.monotonic() - start
    ok = count - len(failures)
    summary = ", ".join(f"status {k}: {v}" for k, v in sorted(statuses.items(), key=str))
    print(f"robustness: {ok}/{count} runs behaved ({summary}) in {elapsed:.0f} s")
    if failures:
        save_dir.mkdir(parents=True, exist_ok=True)
        for index, problem, err in failures:
            saved = save_dir / f"case{index}.lisp"
            saved.write_bytes(cases[index])
            tail = err.decode(errors="replace").strip().splitlines()[-3:]
            print(f"FAIL {saved}: {problem}")
            for line in tail:
                print(f"    {line}")
        print(f"robustness: {len(failures)} failures (seed {seed}); rerun one with: kiln FILE")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

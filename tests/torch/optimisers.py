#!/usr/bin/env python3
"""Ten steps of Kiln's adam-step and momentum-step (stdlib/training.lisp) against
torch.optim.Adam and torch.optim.SGD(momentum=...) in float64 on the same small
regression problem, every step's params compared to 1e-12 relative; the Kiln steps
run eagerly and through jit. Skips (exit 0, saying so) where Debian's python3-torch
is missing.

usage: optimisers.py KILN
"""
import subprocess
import sys

try:
    import torch
except ImportError:
    print("optimisers: skipped (python3-torch is not installed)")
    sys.exit(0)

from torch_agreement import agree, numbers, relative_difference  # noqa: E402

torch.set_default_dtype(torch.float64)
kiln = sys.argv[1]
STEPS = 10

X = [[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0], [2.0, -1.5]]
Y = [[1.0], [0.0], [2.0], [-0.5]]
W0 = [[0.5], [-0.25]]
B0 = 0.1
# name, Kiln step call (STATE PARAMS GRADS), Kiln init, torch optimiser factory
OPTIMISERS = [
    ("adam", "(adam-step state params g 0.05)", "adam-init",
     lambda ps: torch.optim.Adam(ps, lr=0.05)),
    ("adam-options", "(adam-step state params g 0.1 0.8 0.95 1e-6)", "adam-init",
     lambda ps: torch.optim.Adam(ps, lr=0.1, betas=(0.8, 0.95), eps=1e-6)),
    ("momentum", "(momentum-step state params g 0.05)", "momentum-init",
     lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9)),
    ("momentum-0.5", "(momentum-step state params g 0.02 0.5)", "momentum-init",
     lambda ps: torch.optim.SGD(ps, lr=0.02, momentum=0.5)),
    ("sgd", "(cons (sgd-step params g 0.05) state)", "(lambda (p) '())",
     lambda ps: torch.optim.SGD(ps, lr=0.05)),
]


def lisp(rows):
    return "(tensor '(" + " ".join("(" + " ".join(repr(v) for v in r) + ")" for r in rows) + "))"


lines = [f"""
(define x {lisp(X)})
(define y {lisp(Y)})
(define (loss params)
  (tensor-mean (square (- (+ (matmul x (car params)) (cadr params)) y))))
(define (show params)
  (write (list (tensor->list (car params)) (cadr params))) (newline))
(define (run step init)
  (let loop ((i 0) (state (init (list {lisp(W0)} {B0!r}))) (params (list {lisp(W0)} {B0!r})))
    (if (< i {STEPS})
        (let ((r (step state params)))
          (show (car r))
          (loop (+ i 1) (cdr r) (car r))))))
"""]
for name, call, init, _ in OPTIMISERS:
    step = f"(lambda (state params) (let ((g (cadr (graph-grad loss params)))) {call}))"
    lines.append(f"(run {step} {init})")
    lines.append(f"(run (jit {step}) {init})")
out = subprocess.run([kiln, "-e", "\n".join(lines)], capture_output=True, text=True, timeout=300)
if out.returncode != 0:
    print(out.stdout + out.stderr)
    sys.exit(1)
got = out.stdout.split("\n")


want = []
for name, _, _, make in OPTIMISERS:
    w = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(B0, requires_grad=True)
    opt = make([w, b])
    x, y = torch.tensor(X), torch.tensor(Y)
    for i in range(STEPS):
        opt.zero_grad()
        ((x @ w + b - y) ** 2).mean().backward()
        opt.step()
        want.append((f"{name} step {i + 1}", w.detach().flatten().tolist() + [b.item()]))

# Kiln printed each optimiser's eager run, then its jitted run
expected = []
for k, (name, _, _, _) in enumerate(OPTIMISERS):
    block = want[k * STEPS:(k + 1) * STEPS]
    expected += [(label + " eager", vals) for label, vals in block]
    expected += [(label + " jit", vals) for label, vals in block]
bad = 0
count = 0
worst = 0.0
for (label, w_vals), line in zip(expected, got):
    count += 1
    k_vals = numbers(line)
    if len(k_vals) == len(w_vals):
        worst = max([worst] + [relative_difference(a, b) for a, b in zip(k_vals, w_vals)])
    if not agree(k_vals, w_vals):
        bad += 1
        print(f"optimisers: {label}: kiln {k_vals} torch {w_vals}")
if count != len(expected):
    print(f"optimisers: kiln printed {count} lines, expected {len(expected)}")
    bad += 1
print(f"optimisers: {count} steps compared, {bad} differ beyond 1e-12 relative "
      f"(largest difference {worst:.3g})")
sys.exit(1 if bad else 0)

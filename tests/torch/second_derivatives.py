#!/usr/bin/env python3
"""Second derivatives and a Hessian-vector product computed by Kiln's nested
`grad` against PyTorch float64 autograd with create_graph=True (docs/graph.md,
"Nesting"). Skips (exit 0, saying so) where Debian's python3-torch is missing.

usage: second_derivatives.py KILN
"""
import subprocess
import sys

try:
    import torch
except ImportError:
    print("second_derivatives: skipped (python3-torch is not installed)")
    sys.exit(0)

from torch_agreement import agree, numbers  # noqa: E402

torch.set_default_dtype(torch.float64)
kiln = sys.argv[1]

# name, Kiln expression of f at scalar x (a procedure), the same in PyTorch, points
CASES = [
    ("cube", "(lambda (x) (* x x x))", lambda x: x * x * x, [2.0, -1.5]),
    ("tanh", "(lambda (x) (tensor-sum (tensor-tanh (* x (tensor '(1.0 -2.0 0.5))))))",
     lambda x: torch.tanh(x * torch.tensor([1.0, -2.0, 0.5])).sum(), [0.3, -0.7]),
    ("log-sum-exp", "(lambda (x) (log (tensor-sum (exp (* x (tensor '(1.0 2.0 3.0)))))))",
     lambda x: torch.log(torch.exp(x * torch.tensor([1.0, 2.0, 3.0])).sum()), [0.7, -0.2]),
    ("sigmoid", "(lambda (x) (tensor-sum (tensor-sigmoid (+ x (tensor '(0.0 1.0))))))",
     lambda x: torch.sigmoid(x + torch.tensor([0.0, 1.0])).sum(), [-0.4, 1.1]),
    ("sin-exp", "(lambda (x) (* (sin x) (exp x)))", lambda x: torch.sin(x) * torch.exp(x), [0.5, 2.0]),
    ("gelu", "(lambda (x) (tensor-sum (tensor-gelu (* x (tensor '(1.0 -2.0 0.5))))))",
     lambda x: torch.nn.functional.gelu(x * torch.tensor([1.0, -2.0, 0.5]), approximate="tanh").sum(),
     [0.3, -1.7]),
    ("silu", "(lambda (x) (tensor-sum (tensor-silu (* x (tensor '(1.0 -2.0 0.5))))))",
     lambda x: torch.nn.functional.silu(x * torch.tensor([1.0, -2.0, 0.5])).sum(), [0.3, -1.7]),
    ("var", "(lambda (x) (tensor-var (exp (* x (tensor '(1.0 -2.0 0.5 3.0))))))",
     lambda x: torch.var(torch.exp(x * torch.tensor([1.0, -2.0, 0.5, 3.0])), unbiased=False), [0.3, -0.4]),
]

lines = ["(define (d f) (lambda (x) (cadr ((grad f) x))))"]
for name, expr, _, points in CASES:
    for p in points:
        lines.append(f"(write ((d (d {expr})) {p!r})) (newline)")
# Hessian-vector product of a small MLP's loss in its weights
lines.append("""
(define x (tensor '((1.0 2.0) (-1.0 0.5) (0.0 3.0))))
(define w (tensor '((0.5 -1.0) (2.0 0.25))))
(define v (tensor '((1.0 0.0) (0.0 -1.0))))
(define (mlp-loss w) (tensor-mean (square (tensor-tanh (matmul x w)))))
(define (hvp w v) (cadr ((grad (lambda (w) (tensor-sum (* (cadr ((grad mlp-loss) w)) v)))) w)))
(write (tensor->list (hvp w v))) (newline)
""")
out = subprocess.run([kiln, "-e", "\n".join(lines)], capture_output=True, text=True, timeout=120)
if out.returncode != 0:
    print(out.stdout + out.stderr)
    sys.exit(1)
got = out.stdout.split("\n")

want = []
for name, _, f, points in CASES:
    for p in points:
        x = torch.tensor(p, requires_grad=True)
        (g,) = torch.autograd.grad(f(x), x, create_graph=True)
        (h,) = torch.autograd.grad(g, x)
        want.append((f"{name}''({p})", [h.item()]))
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]])
w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
v = torch.tensor([[1.0, 0.0], [0.0, -1.0]])
loss = torch.tanh(x @ w).pow(2).mean()
(g,) = torch.autograd.grad(loss, w, create_graph=True)
(hv,) = torch.autograd.grad((g * v).sum(), w)
want.append(("mlp hvp", hv.flatten().tolist()))


bad = 0
for (label, w_vals), line in zip(want, got):
    k_vals = numbers(line)
    if not agree(k_vals, w_vals):
        bad += 1
        print(f"second_derivatives: {label}: kiln {k_vals} torch {w_vals}")
print(f"second_derivatives: {len(want)} values, {bad} differ beyond 1e-12 relative")
sys.exit(1 if bad else 0)

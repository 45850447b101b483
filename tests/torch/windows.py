#!/usr/bin/env python3
"""matmul on any ranks, conv2d, conv1d, max-pool2d and avg-pool2d (SPEC §14) against
PyTorch float64: each op's value and the gradient of a weighted sum of it with
respect to every input, from graph-grad, from a compiled kernel
(graph-compile-grad) and from jit of grad, compared to torch.autograd at 1e-12
relative; and second derivatives (the gradient of the squared gradient, nested
grad against create_graph=True). Skips (exit 0, saying so) where Debian's
python3-torch is missing.

usage: windows.py KILN
"""
import subprocess
import sys
import tempfile

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("windows: skipped (python3-torch is not installed)")
    sys.exit(0)

from nested_data import NestedData  # noqa: E402
from kiln_text import T, lisp  # noqa: E402
from torch_agreement import report_by_name  # noqa: E402

torch.set_default_dtype(torch.float64)
kiln = sys.argv[1]
data = NestedData(28, -3.0, 3.0)
rng = data.rng


def out_shape(fn, args):
    return list(fn(*[torch.tensor(a) for a in args]).shape)


# name, Kiln (lambda (ARGS...) Y), torch fn of the same ARGS, argument data. The loss
# is sum(v * Y) with v a fixed random tensor of Y's shape.
OPS = [
    ("matmul-4x2", "(lambda (a b) (matmul a b))", torch.matmul, [data(2, 3, 4, 5), data(5, 3)]),
    ("matmul-bcast", "(lambda (a b) (matmul a b))", torch.matmul, [data(2, 1, 4, 5), data(3, 5, 2)]),
    ("matmul-2x3", "(lambda (a b) (matmul a b))", torch.matmul, [data(4, 5), data(3, 5, 2)]),
    ("matmul-1x3", "(lambda (a b) (matmul a b))", torch.matmul, [data(5), data(2, 5, 3)]),
    ("matmul-3x1", "(lambda (a b) (matmul a b))", torch.matmul, [data(2, 4, 5), data(5)]),
    ("conv2d", "(lambda (x w) (conv2d x w))", F.conv2d, [data(2, 3, 7, 6), data(4, 3, 3, 2)]),
    ("conv2d-pad", "(lambda (x w) (conv2d x w 1 1))",
     lambda x, w: F.conv2d(x, w, stride=1, padding=1), [data(2, 1, 8, 8), data(8, 1, 3, 3)]),
    ("conv2d-stride-pad-dil", "(lambda (x w) (conv2d x w '(2 1) '(1 2) '(2 1)))",
     lambda x, w: F.conv2d(x, w, stride=(2, 1), padding=(1, 2), dilation=(2, 1)),
     [data(2, 3, 9, 7), data(2, 3, 3, 2)]),
    ("conv2d-bias", "(lambda (x w b) (+ (conv2d x w 2 1) (reshape b '(1 3 1 1))))",
     lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), [data(1, 2, 5, 5), data(3, 2, 3, 3), data(3)]),
    ("conv1d", "(lambda (x w) (conv1d x w 2 1 2))",
     lambda x, w: F.conv1d(x, w, stride=2, padding=1, dilation=2), [data(2, 3, 11), data(5, 3, 3)]),
    ("max-pool2d", "(lambda (x) (max-pool2d x 2))", lambda x: F.max_pool2d(x, 2), [data(2, 3, 6, 7)]),
    ("max-pool2d-pad", "(lambda (x) (max-pool2d x 3 2 1))",
     lambda x: F.max_pool2d(x, 3, 2, 1), [data(2, 2, 7, 6)]),
    ("max-pool2d-ties", "(lambda (x) (max-pool2d x 2 1))", lambda x: F.max_pool2d(x, 2, 1),
     [[[[[float(rng.randrange(3)) for _ in range(5)] for _ in range(5)]]]]),
    ("avg-pool2d", "(lambda (x) (avg-pool2d x '(3 2)))", lambda x: F.avg_pool2d(x, (3, 2)),
     [data(2, 3, 7, 6)]),
    ("avg-pool2d-pad", "(lambda (x) (avg-pool2d x 3 2 1))", lambda x: F.avg_pool2d(x, 3, 2, 1),
     [data(1, 2, 6, 7)]),
]
# Second derivatives: the loss is sum(gradient of sum(v * Y) wrt the first argument, squared).
SECOND = ["matmul-bcast", "conv2d-stride-pad-dil", "conv1d", "max-pool2d-pad", "avg-pool2d-pad"]

lines = ["""
(define (emit name . vals)
  (display name)
  (for-each (lambda (v)
              (let walk ((v v))
                (cond ((tensor? v) (walk (tensor->list v)))
                      ((pair? v) (for-each walk v))
                      ((null? v) #t)
                      (else (display " ") (write v)))))
            vals)
  (newline))
"""]
cases = []
for name, fn, torch_fn, args in OPS:
    v = data(*out_shape(torch_fn, args))
    n = len(args)
    params = " ".join(f"a{i}" for i in range(n))
    loss = f"(lambda ({params} v) (tensor-sum (* v ({fn} {params}))))"
    argv = " ".join(T(a) for a in args + [v])
    lines.append(f"(define f {loss})")
    lines.append(f"(emit \"{name} value\" ({fn} {' '.join(T(a) for a in args)}))")
    lines.append(f"(emit \"{name} grad\" (graph-grad f {argv}))")
    lines.append(f"(emit \"{name} compiled\" ((graph-compile-grad f {argv}) {argv}))")
    lines.append(f"(emit \"{name} jit\" ((jit (grad f)) {argv}))")
    if name in SECOND:
        lines.append(f"(define (f2 {params} v) (tensor-sum (square (cadr ((grad f) {params} v)))))")
        lines.append(f"(emit \"{name} second\" ((grad f2) {argv}))")
        lines.append(f"(emit \"{name} second-jit\" ((jit (grad f2)) {argv}))")
    cases.append((name, torch_fn, args, v))

with tempfile.NamedTemporaryFile("w", suffix=".lisp") as program:
    program.write("\n".join(lines))
    program.flush()
    out = subprocess.run([kiln, program.name], capture_output=True, text=True, timeout=300)
if out.returncode != 0:
    print(out.stderr)
    sys.exit(1)
got = {}
for line in out.stdout.splitlines():
    words = line.split(" ")
    got[" ".join(words[:2])] = [float(w) for w in words[2:]]

want = {}
for name, torch_fn, args, v in cases:
    ts = [torch.tensor(a, requires_grad=True) for a in args]
    vt = torch.tensor(v, requires_grad=True)
    y = torch_fn(*ts)
    want[f"{name} value"] = y.flatten().tolist()
    loss = (vt * y).sum()
    grads = torch.autograd.grad(loss, ts + [vt], create_graph=True)
    vals = [loss.item()] + [x for g in grads for x in g.flatten().tolist()]
    for kind in ("grad", "compiled", "jit"):
        want[f"{name} {kind}"] = vals
    if name in SECOND:
        loss2 = (grads[0] ** 2).sum()
        # an argument loss2 does not depend on gets zeros in Kiln
        seconds = torch.autograd.grad(loss2, ts + [vt], allow_unused=True)
        vals2 = [loss2.item()]
        for t, g in zip(ts + [vt], seconds):
            vals2 += (g if g is not None else torch.zeros_like(t)).flatten().tolist()
        want[f"{name} second"] = vals2
        want[f"{name} second-jit"] = vals2

sys.exit(report_by_name("windows", want, got))

#!/usr/bin/env python3
"""The ops of SPEC §13 and §14 against PyTorch float64: each op's value and the gradient of
a weighted sum of it (or of the loss itself) with respect to every input, from
graph-grad and from a compiled kernel (graph-compile-grad), compared to
torch.autograd at 1e-12 relative; the fans of he-normal and glorot-uniform against
torch.nn.init's for the same weight (Kiln's FAN-IN x FAN-OUT is PyTorch's
OUT x IN). Skips (exit 0, saying so) where Debian's python3-torch is missing.

usage: ops.py KILN
"""
import math
import subprocess
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("ops: skipped (python3-torch is not installed)")
    sys.exit(0)

from nested_data import NestedData  # noqa: E402
from kiln_text import T, lisp  # noqa: E402
from torch_agreement import report_by_name  # noqa: E402

torch.set_default_dtype(torch.float64)
kiln = sys.argv[1]
data = NestedData(13, -3.0, 3.0)
rng = data.rng


# Each case: name, Kiln (lambda (ARGS...) LOSS), arguments (nested lists), and
# the same loss in torch over tensors that require grad. Every argument gets a
# gradient compared (class labels get zeros in Kiln and none in torch: skipped).
X34, W34 = data(3, 4), data(3, 4)
X345 = data(3, 4, 5)
W345 = data(3, 4, 5)
LOGITS = data(5, 4)
LOGITS[2] = [v * 200 for v in LOGITS[2]]  # large logits: the max shift matters
LABELS = [3, 0, 2, 2, 1]
SOFT = [[abs(v) + 0.1 for v in row] for row in data(5, 4)]
SOFT = [[v / sum(row) for v in row] for row in SOFT]
IDX = [2, 0, 2, 1, 2]
IDX2 = [[3, 0], [1, 3]]
TIES = [[1.0, 7.0, 7.0, -2.0], [0.5, 0.5, -1.0, 0.5], [-4.0, 3.0, 9.0, 9.0]]


def wsum(w, y):
    return (w * y).sum()


CASES = [
    ("softmax", "(lambda (x w) (tensor-sum (* w (softmax x))))", [X34, W34],
     lambda x, w: wsum(w, torch.softmax(x, -1))),
    ("softmax-axis0", "(lambda (x w) (tensor-sum (* w (softmax x 0))))", [X345, W345],
     lambda x, w: wsum(w, torch.softmax(x, 0))),
    ("log-softmax", "(lambda (x w) (tensor-sum (* w (log-softmax x))))", [LOGITS, data(5, 4)],
     lambda x, w: wsum(w, torch.log_softmax(x, -1))),
    ("log-softmax-axis1", "(lambda (x w) (tensor-sum (* w (log-softmax x 1))))", [X345, W345],
     lambda x, w: wsum(w, torch.log_softmax(x, 1))),
    ("cross-entropy-indices", f"(lambda (x) (cross-entropy x '{lisp(LABELS)}))", [LOGITS],
     lambda x: F.cross_entropy(x, torch.tensor(LABELS))),
    ("cross-entropy-tensor-labels", "(lambda (x l) (cross-entropy x l))", [LOGITS, LABELS],
     lambda x, l: F.cross_entropy(x, l.detach().long())),
    ("cross-entropy-one-hot", f"(lambda (x) (cross-entropy x (one-hot '{lisp(LABELS)} 4)))", [LOGITS],
     lambda x: F.cross_entropy(x, F.one_hot(torch.tensor(LABELS), 4).double())),
    ("cross-entropy-soft", "(lambda (x p) (cross-entropy x p))", [LOGITS, SOFT],
     lambda x, p: F.cross_entropy(x, p)),
    ("mse", "(lambda (a b) (mse a b))", [X34, W34], lambda a, b: F.mse_loss(a, b)),
    ("mse-rank3", "(lambda (a b) (mse a b))", [X345, W345], lambda a, b: F.mse_loss(a, b)),
    ("tensor-clip", "(lambda (x w) (tensor-sum (* w (tensor-clip x -1.25 0.75))))", [X34, W34],
     lambda x, w: wsum(w, torch.clamp(x, -1.25, 0.75))),
    ("tensor-clip-tensors", "(lambda (x lo hi w) (tensor-sum (* w (tensor-clip x lo hi))))",
     [X34, data(3, 4, hi=0.0), data(3, 4, lo=0.0), W34],
     lambda x, lo, hi, w: wsum(w, torch.clamp(x, lo, hi))),
    ("tensor-where", "(lambda (c a b w) (tensor-sum (* w (tensor-where c (* a a) (exp b)))))",
     [[[float(rng.random() < 0.5) for _ in range(4)] for _ in range(3)], X34, data(4), W34],
     lambda c, a, b, w: wsum(w, torch.where(c != 0, a * a, torch.exp(b)))),
    ("tensor-take", f"(lambda (x w) (tensor-sum (* w (tensor-take x '{lisp(IDX)} 1))))",
     [X34, data(3, 5)], lambda x, w: wsum(w, torch.index_select(x, 1, torch.tensor(IDX)))),
    ("tensor-take-axis0", f"(lambda (x w) (tensor-sum (* w (tensor-take x '{lisp(IDX)}))))",
     [data(3, 2), data(5, 2)], lambda x, w: wsum(w, torch.index_select(x, 0, torch.tensor(IDX)))),
    ("tensor-take-2d", f"(lambda (x w) (tensor-sum (* w (tensor-take x (tensor '{lisp(IDX2)}) 1))))",
     [X345, data(3, 2, 2, 5)],
     lambda x, w: wsum(w, torch.index_select(x, 1, torch.tensor(IDX2).flatten()).reshape(3, 2, 2, 5))),
    ("tensor-take-indices-arg", "(lambda (x i w) (tensor-sum (* w (tensor-take x i 1))))",
     [X34, IDX, data(3, 5)],
     lambda x, i, w: wsum(w, torch.index_select(x, 1, i.detach().long()))),
    ("softmax-of-take", f"(lambda (x) (tensor-sum (square (softmax (tensor-take x '{lisp(IDX)})))))",
     [data(3, 4)], lambda x: (torch.softmax(torch.index_select(x, 0, torch.tensor(IDX)), -1) ** 2).sum()),
    # SPEC §14 (random data: no ties, where PyTorch's whole-tensor min spreads the gradient)
    ("tensor-gelu", "(lambda (x w) (tensor-sum (* w (tensor-gelu x))))", [X345, W345],
     lambda x, w: wsum(w, F.gelu(x, approximate="tanh"))),
    ("tensor-gelu-of-gelu", "(lambda (x) (tensor-sum (tensor-gelu (tensor-mul 3.0 (tensor-gelu x)))))",
     [data(7)], lambda x: F.gelu(3.0 * F.gelu(x, approximate="tanh"), approximate="tanh").sum()),
    ("tensor-silu", "(lambda (x w) (tensor-sum (* w (tensor-silu x))))", [X345, W345],
     lambda x, w: wsum(w, F.silu(x))),
    ("tensor-min", "(lambda (x) (tensor-min (tensor-mul x x)))", [X34], lambda x: torch.min(x * x)),
    ("tensor-min-axis", "(lambda (x w) (tensor-sum (* w (tensor-min x 1))))", [X345, data(3, 5)],
     lambda x, w: wsum(w, torch.min(x, 1).values)),
    ("tensor-min-keepdims", "(lambda (x w) (tensor-sum (* w (tensor-min x 0 #t))))", [X34, data(1, 4)],
     lambda x, w: wsum(w, torch.min(x, 0, keepdim=True).values)),
    ("tensor-var", "(lambda (x) (tensor-var x))", [X345], lambda x: torch.var(x, unbiased=False)),
    ("tensor-var-axis", "(lambda (x w) (tensor-sum (* w (tensor-var x 2))))", [X345, data(3, 4)],
     lambda x, w: wsum(w, torch.var(x, 2, unbiased=False))),
    ("tensor-var-keepdims", "(lambda (x w) (tensor-sum (* w (tensor-var x 0 #t))))", [X345, data(1, 4, 5)],
     lambda x, w: wsum(w, torch.var(x, 0, unbiased=False, keepdim=True))),
    ("dropout-rate-0", "(lambda (x w) (tensor-sum (* w (dropout x 0 7))))", [X34, W34],
     lambda x, w: wsum(w, F.dropout(x, 0.0))),
]
# Argument positions that are class labels or indices: no gradient in torch.
INTEGER_ARGS = {"cross-entropy-tensor-labels": {1}, "tensor-take-indices-arg": {1},
                "tensor-where": {0}}

# Forward values of the ops without a gradient, or whose value is checked alone.
VALUES = [
    ("tensor-argmax", f"(tensor-argmax {T(TIES)})", lambda: torch.argmax(torch.tensor(TIES), -1)),
    ("tensor-argmax-axis0", f"(tensor-argmax {T(TIES)} 0)", lambda: torch.argmax(torch.tensor(TIES), 0)),
    ("tensor-argmax-rank3", f"(tensor-argmax {T(X345)} 1)", lambda: torch.argmax(torch.tensor(X345), 1)),
    ("one-hot", f"(one-hot '{lisp(LABELS)} 4)", lambda: F.one_hot(torch.tensor(LABELS), 4)),
    ("softmax-value", f"(softmax {T(LOGITS)})", lambda: torch.softmax(torch.tensor(LOGITS), -1)),
    ("log-softmax-value", f"(log-softmax {T(LOGITS)} 0)", lambda: torch.log_softmax(torch.tensor(LOGITS), 0)),
    ("cross-entropy-value", f"(cross-entropy {T(LOGITS)} '{lisp(LABELS)})",
     lambda: F.cross_entropy(torch.tensor(LOGITS), torch.tensor(LABELS))),
    ("tensor-eq", f"(tensor-eq {T(TIES)} 0.5)", lambda: torch.eq(torch.tensor(TIES), 0.5)),
    ("tensor-lt", f"(tensor-lt {T(TIES)} {T(TIES[1])})", lambda: torch.lt(torch.tensor(TIES), torch.tensor(TIES[1]))),
    ("tensor-le", f"(tensor-le {T(TIES)} {T(TIES[1])})", lambda: torch.le(torch.tensor(TIES), torch.tensor(TIES[1]))),
    ("tensor-gt", f"(tensor-gt {T(TIES)} 0.5)", lambda: torch.gt(torch.tensor(TIES), 0.5)),
    ("tensor-ge", f"(tensor-ge {T(TIES)} 0.5)", lambda: torch.ge(torch.tensor(TIES), 0.5)),
    ("tensor-min-ties", f"(tensor-min {T(TIES)} 1)", lambda: torch.min(torch.tensor(TIES), 1).values),
    ("tensor-gelu-value", f"(tensor-gelu {T(X345)})", lambda: F.gelu(torch.tensor(X345), approximate="tanh")),
    ("tensor-silu-value", f"(tensor-silu {T(X345)})", lambda: F.silu(torch.tensor(X345))),
]

# he-normal's std and glorot-uniform's bound for Kiln shapes (FAN-IN FAN-OUT ...):
# Kiln's number over tensor-randn's (or 2u-1 of tensor-rand's), against
# torch.nn.init's fans of the same weight in its OUT x IN layout.
INIT_SHAPES = [[64, 10], [3, 7], [8, 4, 3, 3]]


def torch_shape(s):
    return [s[1], s[0]] + s[2:]


def torch_std_bound(s):
    w = torch.empty(torch_shape(s))
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(w)
    std = torch.nn.init.calculate_gain("relu") / math.sqrt(fan_in)
    bound = torch.nn.init.calculate_gain("linear") * math.sqrt(6.0 / (fan_in + fan_out))
    return std, bound


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
for name, fn, args, _ in CASES:
    argv = " ".join(T(a) for a in args)
    lines.append(f"(define f {fn})")
    lines.append(f"(emit \"{name} grad\" (graph-grad f {argv}))")
    lines.append(f"(emit \"{name} compiled\" ((graph-compile-grad f {argv}) {argv}))")
for name, expr, _ in VALUES:
    lines.append(f"(emit \"{name}\" {expr})")
def init_name(s):
    return "init-" + "x".join(str(d) for d in s)


for s in INIT_SHAPES:
    ks = "(" + " ".join(str(d) for d in s) + ")"
    lines.append(f"(emit \"{init_name(s)}\" (/ (tensor-ref (reshape (he-normal '{ks} 3) '(-1)) 0) "
                 f"(tensor-ref (reshape (tensor-randn '{ks} 3) '(-1)) 0)) "
                 f"(/ (tensor-ref (reshape (glorot-uniform '{ks} 3) '(-1)) 0) "
                 f"(- (* 2 (tensor-ref (reshape (tensor-rand '{ks} 3) '(-1)) 0)) 1)))")
out = subprocess.run([kiln, "-e", "\n".join(lines)], capture_output=True, text=True, timeout=300)
if out.returncode != 0:
    print(out.stdout + out.stderr)
    sys.exit(1)
got = {}
for line in out.stdout.splitlines():
    words = line.split(" ")
    k = 2 if len(words) > 1 and words[1] in ("grad", "compiled") else 1  # "softmax grad 0.5 ..."
    got[" ".join(words[:k])] = [float(w) for w in words[k:]]

want = {}
for name, _, args, torch_fn in CASES:
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]
    loss = torch_fn(*ts)
    loss.backward()
    vals = [loss.item()]
    for k, t in enumerate(ts):
        grad = t.grad if k not in INTEGER_ARGS.get(name, ()) else torch.zeros_like(t)
        vals += grad.flatten().tolist()
    want[f"{name} grad"] = vals
    want[f"{name} compiled"] = vals
for name, _, torch_fn in VALUES:
    want[name] = [float(v) for v in torch_fn().flatten().tolist()]
for s in INIT_SHAPES:
    std, bound = torch_std_bound(s)
    want[init_name(s)] = [std, bound]

sys.exit(report_by_name("ops", want, got))

#!/usr/bin/python3
"""Reference gradients for tests/unit/test_autodiff.cpp, from PyTorch float64 autograd.

Run once with the system Python (/usr/bin/python3 tests/data/graph_torch_refs.py) and paste the output into the
test's kTorchCases table; the test never runs Python. Each case's inputs come
from the same formula as the C++ test's `input_value`: element i of argument k
is ((i*37 + k*11 + 5) % 101) / 50 - 1 (exact in binary, distinct for i < 101),
or that plus 2 for arguments marked positive. Numbers use i = 0.
"""
import torch

torch.set_default_dtype(torch.float64)


def value(i, k, positive):
    v = ((i * 37 + k * 11 + 5) % 101) / 50.0 - 1.0
    return v + 2.0 if positive else v


def make(shape, k, positive=False):
    if shape is None:  # a number
        return torch.tensor(value(0, k, positive), requires_grad=True)
    n = 1
    for d in shape:
        n *= d
    return torch.tensor([value(i, k, positive) for i in range(n)]).reshape(shape).requires_grad_(True)


def onehot(shape, k):
    rows, cols = shape
    t = torch.zeros(shape)
    for r in range(rows):
        t[r, r % cols] = 1.0
    return t.requires_grad_(True)


def bench(x, w, b, t, nn):
    return ((torch.relu(x @ w + b) - t) ** 2).sum() / nn


def mlp(x, w1, b1, w2, b2, y):
    h = torch.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    m = z.max(dim=1, keepdim=True).values
    s = z - m
    lse = torch.log(torch.exp(s).sum(dim=1, keepdim=True))
    logp = s - lse
    return -((y * logp).sum(dim=1)).mean()


def elementwise(a, b):
    return (torch.sigmoid(a) * torch.exp(torch.sin(b)) + torch.sqrt(a * a + 1) / (2 + torch.cos(b))
            + torch.tanh(a) * torch.abs(b) - torch.pow(a + 2, b) + 1 / (a + 3)).sum()


def shapes(a, w):
    p = a.permute(2, 0, 1).reshape(4, 6)
    return (p @ w).mean(dim=0).sum() + a.max(dim=1).values.sum() + a.mean() * a.max() + a.sum(dim=2).pow(2).sum()


def select(a, b):
    return torch.where(a < b, a * b, a - b).sum() + (torch.maximum(a, b) * 2).sum() + torch.minimum(a, b).sum() + torch.relu(a).sum()


def numbers(x, y):
    return x * y + torch.exp(x) / y - torch.log(y) + x * x


CASES = [
    # name, function, [(shape or None, positive, onehot)]
    ("bench", bench, [((4, 5), False, False), ((5, 3), False, False), (None, False, False), ((4, 3), False, False), (None, True, False)]),
    ("mlp", mlp, [((6, 4), False, False), ((4, 5), False, False), ((1, 5), False, False), ((5, 3), False, False), ((1, 3), False, False), ((6, 3), False, True)]),
    ("elementwise", elementwise, [((3, 4), False, False), ((4,), False, False)]),
    ("shapes", shapes, [((2, 3, 4), False, False), ((6, 5), False, False)]),
    ("select", select, [((3, 4), False, False), ((3, 4), False, False)]),
    ("numbers", numbers, [(None, False, False), (None, True, False)]),
]

for name, fn, specs in CASES:
    args = [onehot(s, k) if oh else make(s, k, pos) for k, (s, pos, oh) in enumerate(specs)]
    loss = fn(*args)
    grads = torch.autograd.grad(loss, args, allow_unused=True)
    print(f'    {{"{name}", {loss.item():.17g}, {{')
    for g, a in zip(grads, args):
        g = torch.zeros_like(a) if g is None else g
        vals = ", ".join(f"{v:.17g}" for v in g.reshape(-1).tolist())
        print(f"        {{{vals}}},")
    print("    }},")

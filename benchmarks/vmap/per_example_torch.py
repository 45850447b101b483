"""per_example_torch.py — the same per-example gradients as per_example.lisp in
PyTorch: functorch's vmap of grad (torch.func in PyTorch 2), float64, 1 thread,
batch 128; microseconds per call, best of 7 rounds of 200 calls."""
import time

import torch
import torch.nn.functional as F

try:
    from torch.func import grad, vmap
except ImportError:  # PyTorch 1.13: functorch
    from functorch import grad, vmap

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)
batch = 128
g = torch.Generator().manual_seed(0)
params = ((torch.randn(64, 64, generator=g) * (2 / 64) ** 0.5, torch.zeros(1, 64)),
          ((torch.rand(64, 10, generator=g) * 2 - 1) * (6 / 74) ** 0.5, torch.zeros(1, 10)))
xs = torch.rand(batch, 64, generator=g)
ys = torch.randint(0, 10, (batch,), generator=g)


def loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = torch.relu(x.reshape(1, 64) @ w1 + b1)
    return F.cross_entropy(h @ w2 + b2, y.reshape(1))


per_example = vmap(grad(loss), in_dims=(None, 0, 0))
per_example(params, xs, ys)


def per_call(n):
    t0 = time.perf_counter()
    for _ in range(n):
        per_example(params, xs, ys)
    return (time.perf_counter() - t0) / n * 1e6


print("torch", torch.__version__, "vmap-us", min(per_call(200) for _ in range(7)))

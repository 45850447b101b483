"""The PyTorch side of first_call.lisp: the same SGD step (width 64, batch 32, tanh
layers, mean-square loss, float64, one thread), its first and second call per depth.

    python3 benchmarks/compile/first_call_torch.py [LAYERS ...]
"""
import sys
import time

try:
    import torch
except ImportError:
    print("first_call_torch: PyTorch not installed; skipped")
    sys.exit(0)

torch.set_num_threads(1)
WIDTH, BATCH = 64, 32
X = torch.randn(BATCH, WIDTH, dtype=torch.float64)
Y = torch.randn(BATCH, WIDTH, dtype=torch.float64)


def step(params, x, y):
    h = x
    for w, b in params:
        h = torch.tanh(h @ w + b)
    loss = ((h - y) ** 2).mean()
    grads = torch.autograd.grad(loss, [p for wb in params for p in wb])
    with torch.no_grad():
        flat = [p - 0.01 * g for p, g in zip([p for wb in params for p in wb], grads)]
    return flat, loss.item()


for layers in [int(a) for a in sys.argv[1:]] or [1, 2, 4, 8, 16, 32]:
    params = [(torch.randn(WIDTH, WIDTH, dtype=torch.float64, requires_grad=True) / WIDTH ** 0.5,
               torch.zeros(1, WIDTH, dtype=torch.float64, requires_grad=True)) for _ in range(layers)]
    params = [(w.detach().requires_grad_(), b) for w, b in params]
    t0 = time.perf_counter()
    step(params, X, Y)
    first = (time.perf_counter() - t0) * 1000
    t1 = time.perf_counter()
    step(params, X, Y)
    second = (time.perf_counter() - t1) * 1000
    print(f"(layers {layers} first-call-ms {first:.3f} second-call-ms {second:.3f})")

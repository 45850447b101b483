#!/usr/bin/env python3
"""tensor_torch_bench.py — the PyTorch side of benchmarks/tensor_bench.lisp.

The same workload in 1-thread float64 PyTorch: loss = mean((relu(x W + b) - t)^2)
written as sum(...) / nn, b a scalar, plain SGD (lr 0.01) on W and b, the same
integer-derived inputs, 8x16->8 for 1000 steps and 64x256->64 for 100 steps,
median of 3 timed runs after three warm-up runs. Like Kiln's graph-grad, every step
computes the gradients of all five arguments (x, W, b, t, nn).

Prints one line per size:
  8x16->8 x1000: torch 12.345 ms, final loss 0.35313480499507829
The final loss is the loss of the last step (before its update), printed with
%.17g so run_tensor_bench.sh can count the digits it shares with Kiln's.
"""
import statistics
import time

import torch

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def val(i, off):
    return (((7 * i + off) % 17) - 8) / 8.0


def matrix(rows, cols, off):
    return torch.tensor([[val(i * cols + j, off) for j in range(cols)] for i in range(rows)],
                        dtype=torch.float64)


def train(x0, t0, w0, b0, nn0, steps):
    w = w0.clone()
    b = torch.tensor(b0, dtype=torch.float64)
    last = 0.0
    for _ in range(steps):
        x = x0.clone().requires_grad_(True)
        t = t0.clone().requires_grad_(True)
        nn = torch.tensor(nn0, dtype=torch.float64, requires_grad=True)
        w.requires_grad_(True)
        b.requires_grad_(True)
        d = torch.relu(x @ w + b) - t
        loss = (d * d).sum() / nn
        loss.backward()
        last = loss.item()
        with torch.no_grad():
            w = w - 0.01 * w.grad
            b = b - 0.01 * b.grad
    return last


def bench(m, k, n, steps):
    x, t, w0 = matrix(m, k, 0), matrix(m, n, 5), matrix(k, n, 3)
    b0, nn = val(1, 0), float(m * n)
    for _ in range(3):  # warm-up, as tensor_bench.lisp does
        train(x, t, w0, b0, nn, steps)
    times, loss = [], None
    for _ in range(3):
        start = time.perf_counter()
        loss = train(x, t, w0, b0, nn, steps)
        times.append((time.perf_counter() - start) * 1000.0)
    print(f"{m}x{k}->{n} x{steps}: torch {statistics.median(times):.3f} ms, final loss {loss:.17g}",
          flush=True)


if __name__ == "__main__":
    bench(8, 16, 8, 1000)
    bench(64, 256, 64, 100)

"""torch_bench.py — PyTorch side of benchmarks/tensor_ops: float64, one thread.
Prints "NAME MICROSECONDS-PER-CALL", best of 3 batches."""
import time

import torch

torch.set_num_threads(1)
g = torch.Generator().manual_seed(0)


def rnd(*shape):
    return torch.rand(*shape, dtype=torch.float64, generator=g)


def bench(name, fn, reps):
    fn()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps * 1e6)
    print(f"{name} {best:.4f}")


a8, b8 = rnd(8, 16), rnd(16, 8)
a64, b64 = rnd(64, 256), rnd(256, 64)
a512, b512 = rnd(512, 512), rnd(512, 512)
x, row = rnd(256, 64), rnd(64)
s2 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)

bench("matmul_8x16x8", lambda: torch.matmul(a8, b8), 100000)
bench("matmul_64x256x64", lambda: torch.matmul(a64, b64), 2000)
bench("matmul_512x512x512", lambda: torch.matmul(a512, b512), 10)
bench("add_256x64_bcast_64", lambda: torch.add(x, row), 20000)
bench("sum_256x64", lambda: torch.sum(x), 20000)
bench("add_2x2", lambda: torch.add(s2, s2), 1000000)

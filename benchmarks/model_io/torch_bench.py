#!/usr/bin/env python3
"""torch.save and torch.load of the model bench.lisp saves: three 2048x2048
float64 matrices and a 512000-vector in a dict (104 759 296 bytes of floats).
Prints "save MS", "save+fsync MS" (torch.save does not flush the file to disk;
save-model does) and "load MS" once per run.

usage: torch_bench.py DIR RUNS
"""
import os
import sys
import time

try:
    import torch
except ImportError:
    print("torch_bench: skipped (python3-torch is not installed)")
    sys.exit(0)

d, runs = sys.argv[1], int(sys.argv[2])
path = os.path.join(d, "bench.pt")
torch.manual_seed(1)
model = {"w1": torch.randn(2048, 2048, dtype=torch.float64), "w2": torch.randn(2048, 2048, dtype=torch.float64),
         "w3": torch.randn(2048, 2048, dtype=torch.float64), "b": torch.randn(512000, dtype=torch.float64)}
for _ in range(runs):
    t0 = time.perf_counter()
    torch.save(model, path)
    print("save %.1f" % ((time.perf_counter() - t0) * 1000))
    t0 = time.perf_counter()
    with open(path, "wb") as f:
        torch.save(model, f)
        f.flush()
        os.fsync(f.fileno())
    print("save+fsync %.1f" % ((time.perf_counter() - t0) * 1000))
    t0 = time.perf_counter()
    back = torch.load(path)
    print("load %.1f" % ((time.perf_counter() - t0) * 1000))
    assert all(torch.equal(back[k], model[k]) for k in model)
print("bytes %d" % os.path.getsize(path))

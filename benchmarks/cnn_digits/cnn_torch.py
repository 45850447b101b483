#!/usr/bin/env python3
"""The training of examples/cnn_digits.lisp in PyTorch (1 thread, float64), from the
files Kiln exported with `--export DIR`: the same split, the same initial weights, the
same minibatches in the same order, the same network and Adam. Prints every step's
loss, one line per epoch (mean batch loss, seconds) and the final loss and test
accuracy, in the format run.sh compares.

    cnn_torch.py DIR
"""
import json
import os
import sys
import time

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("cnn_torch: PyTorch is not installed (python3-torch); skipped")
    sys.exit(77)


def loaded_blas():
    """The BLAS library this process mapped (Debian's torch links the libblas.so.3
    alternative: the reference BLAS unless an optimised one is installed)."""
    libs = set()
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if "blas" in path or "lapack" in path:
            libs.add(path)
    return ", ".join(sorted(libs)) or "none mapped"


def main():
    d = sys.argv[1]
    load = lambda name: np.load(os.path.join(d, name + ".npy"))
    torch.set_num_threads(1)
    meta = json.load(open(os.path.join(d, "meta.json")))
    x_train = torch.from_numpy(load("x-train"))
    y_train = torch.from_numpy(load("y-train")).long()
    x_test = torch.from_numpy(load("x-test"))
    y_test = torch.from_numpy(load("y-test")).long()
    params = [torch.from_numpy(load(f"param-{i}")).clone().requires_grad_(True) for i in range(meta["params"])]
    batches = load("batches").astype(np.int64)  # epochs x n-train: each epoch's order
    opt = torch.optim.Adam(params, lr=meta["lr"])

    def forward(x):
        w1, b1, w2, b2, w3, b3 = params
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2, padding=1)), 2)
        return h.reshape(h.shape[0], 64) @ w3 + b3

    batch = meta["batch"]
    for epoch in range(batches.shape[0]):
        order = torch.from_numpy(batches[epoch])
        t0 = time.perf_counter()
        total, count, steps = 0.0, 0, []
        for start in range(0, order.shape[0], batch):
            idx = order[start:start + batch]
            loss = F.cross_entropy(forward(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps.append(loss.item())
            total += steps[-1]
            count += 1
        seconds = time.perf_counter() - t0
        for s in steps:
            print(f"step {s:.17g}")
        print(f"epoch {epoch + 1} loss {total / count:.17g} seconds {seconds:.6f}")
    with torch.no_grad():
        final = F.cross_entropy(forward(x_train), y_train).item()
        accuracy = (forward(x_test).argmax(1) == y_test).double().mean().item()
    print(f"final-loss {final:.17g}")
    print(f"blas {loaded_blas()}")
    print(f"test-accuracy {accuracy:.6f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The training of examples/char_transformer.lisp in PyTorch (1 thread, float64), from
the files Kiln exported with `--export DIR` (run with `--dropout 0`): the same text as
indices, the same initial weights, the same batch offsets at every step, the same
network, AdamW and cosine schedule. Prints every step's loss and seconds, then the
final loss and the BLAS this process loaded, in the format run.sh compares.

    transformer_torch.py DIR
"""
import json
import math
import os
import sys
import time

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("transformer_torch: PyTorch is not installed (python3-torch); skipped")
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


def cosine_rate(base, steps, warmup, s):
    """cosine-schedule of stdlib/training.lisp at step S."""
    p = min(max((s - warmup) / (steps - warmup), 0.0), 1.0)
    decay = 0.5 * (1.0 + math.cos(4.0 * math.atan(1.0) * p))
    return base * decay if warmup == 0 else base * (min(s / warmup, 1.0) * decay)


def main():
    d = sys.argv[1]
    load = lambda name: np.load(os.path.join(d, name + ".npy"))
    torch.set_num_threads(1)
    meta = json.load(open(os.path.join(d, "meta.json")))
    if meta["dropout"] != 0:
        sys.exit("transformer_torch: export with --dropout 0 (dropout masks are not compared)")
    data = torch.from_numpy(load("data")).long()
    offsets = torch.from_numpy(load("offsets")).long()  # steps x batch
    leaves = [torch.from_numpy(load(f"param-{i}")).clone().requires_grad_(True) for i in range(meta["params"])]
    D, T, H, L = meta["d_model"], meta["context"], meta["heads"], meta["layers"]
    hs = D // H
    # tree-leaves order of the named tree: embed, position, each block's
    # (ln1 gain shift, query, key, value, proj w b, ln2 gain shift, up w b, down w b),
    # ln-final gain shift, head w b.
    embed, position = leaves[0], leaves[1]
    blocks = [leaves[2 + 13 * i: 2 + 13 * (i + 1)] for i in range(L)]
    lnf_g, lnf_b, head_w, head_b = leaves[2 + 13 * L:]
    mask = torch.triu(torch.full((T, T), -math.inf, dtype=torch.float64), diagonal=1)

    def forward(x):
        B = x.shape[0]
        h = embed[x] + position[:T]
        for (g1, b1, wq, wk, wv, pw, pb, g2, b2, uw, ub, dw, db) in blocks:
            a = F.layer_norm(h, (D,), g1, b1, 1e-5)
            split = lambda t: t.reshape(B, T, H, hs).transpose(1, 2)
            q, k, v = split(a @ wq), split(a @ wk), split(a @ wv)
            att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(hs) + mask, dim=-1) @ v
            h = h + (att.transpose(1, 2).reshape(B, T, D) @ pw + pb)
            a = F.layer_norm(h, (D,), g2, b2, 1e-5)
            h = h + (F.gelu(a @ uw + ub, approximate="tanh") @ dw + db)
        return F.layer_norm(h, (D,), lnf_g, lnf_b, 1e-5) @ head_w + head_b

    opt = torch.optim.AdamW(leaves, lr=meta["lr"], betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    positions = torch.arange(T)
    steps = offsets.shape[0]
    for s in range(steps):
        rows = offsets[s][:, None] + positions[None, :]
        x, y = data[rows], data[rows + 1]
        t0 = time.perf_counter()
        for group in opt.param_groups:
            group["lr"] = cosine_rate(meta["lr"], meta["steps"], meta["warmup"], float(s))
        logits = forward(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        value = loss.item()
        seconds = time.perf_counter() - t0
        print(f"step {value:.17g} seconds {seconds:.6f}")
    print(f"final-loss {value:.17g}")
    print(f"blas {loaded_blas()}")


if __name__ == "__main__":
    main()

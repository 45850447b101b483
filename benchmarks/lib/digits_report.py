#!/usr/bin/env python3
"""usage: digits_report.py KILN_OUTPUT TORCH_OUTPUT

The side-by-side report of digits/run.sh and cnn_digits/run.sh: each side's first
three epoch losses and its last, then a table of mean seconds per epoch (epochs
2.., the first including Kiln's compiles), the first epoch, final training loss and
test accuracy. Where the runs print per-step losses ("step" lines: cnn_digits), the
last row is the largest per-step difference, relative, else the largest per-epoch
mean-loss difference; where PyTorch names its BLAS ("blas" line), that comes first."""
import sys


def read(path):
    epochs, steps, final, acc, blas = [], [], None, None, None
    for line in open(path):
        w = line.split()
        if w and w[0] == "epoch": epochs.append((float(w[3]), float(w[5])))
        elif w and w[0] == "step": steps.append(float(w[1]))
        elif w and w[0] == "final-loss": final = float(w[1])
        elif w and w[0] == "test-accuracy": acc = float(w[1])
        elif w and w[0] == "blas": blas = " ".join(w[1:])
    return epochs, steps, final, acc, blas


k, t = read(sys.argv[1]), read(sys.argv[2])
if t[4] is not None:
    print(f"PyTorch's BLAS: {t[4]}")
for name, (ep, _, final, acc, _) in (("kiln", k), ("pytorch", t)):
    print(f"{name:8s} " + " ".join(f"{l:.6f}" for l, _ in ep[:3]) + " ... " + f"{ep[-1][0]:.12f}")
mean = lambda ep: sum(s for _, s in ep[1:]) / max(1, len(ep) - 1)
print("| | Kiln (jit step) | PyTorch | PyTorch / Kiln |")
print("|---|---|---|---|")
print(f"| seconds per epoch (mean of epochs 2-{len(k[0])}) | {mean(k[0]):.4f} | {mean(t[0]):.4f} | {mean(t[0]) / mean(k[0]):.1f}x |")
print(f"| first epoch, seconds (Kiln: with its compiles) | {k[0][0][1]:.4f} | {t[0][0][1]:.4f} | |")
print(f"| final training loss | {k[2]:.15g} | {t[2]:.15g} | difference {abs(k[2] - t[2]):.2e} |")
print(f"| test accuracy | {100 * k[3]:.2f}% | {100 * t[3]:.2f}% | |")
if k[1]:
    worst = max(abs(a - b) / abs(b) for a, b in zip(k[1], t[1]))
    print(f"| largest per-step loss difference ({len(k[1])} steps), relative | {worst:.2e} | | |")
else:
    worst = max(abs(a - b) for (a, _), (b, _) in zip(k[0], t[0]))
    print(f"| largest per-epoch mean-loss difference | {worst:.2e} | | |")

#!/usr/bin/env python3
"""usage: step_losses_agree.py NAME KILN_OUTPUT TORCH_OUTPUT

The "step N LOSS ..." lines of an example's --export run and of its PyTorch twin
(cnn_digits.sh, char_transformer.sh): the same number of steps, at least one, and
every loss within 1e-9 relative. Prints the largest difference; exits 1 otherwise."""
import sys

name = sys.argv[1]
steps = [[float(l.split()[1]) for l in open(p) if l.startswith("step ")] for p in sys.argv[2:4]]
k, t = steps
if len(k) != len(t) or not k:
    print(f"FAIL: {len(k)} Kiln steps, {len(t)} PyTorch steps")
    sys.exit(1)
worst = max(abs(a - b) / abs(b) for a, b in zip(k, t))
print(f"{name}: {len(k)} steps, largest loss difference to PyTorch {worst:.2e} relative")
sys.exit(0 if worst <= 1e-9 else 1)

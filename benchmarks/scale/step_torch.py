"""The PyTorch side of step.lisp: the same SGD step (ReLU MLP, batch 64,
mean-square loss, float64), timed over STEPS steps after two warm-up steps with
THREADS threads (torch.set_num_threads). Prints wall ms and CPU ms per step
(time.process_time: every thread of the process).

    python3 benchmarks/scale/step_torch.py WIDTH DEPTH STEPS THREADS
"""
import sys
import time

try:
    import torch
except ImportError:
    print("step_torch: PyTorch not installed; skipped")
    sys.exit(0)

WIDTH, DEPTH, STEPS, THREADS = (int(a) for a in sys.argv[1:5])
torch.set_num_threads(THREADS)
torch.manual_seed(0)
BATCH = 64
X = torch.randn(BATCH, WIDTH, dtype=torch.float64)
Y = torch.randn(BATCH, WIDTH, dtype=torch.float64)
params = []
for _ in range(DEPTH):
    params += [(torch.randn(WIDTH, WIDTH, dtype=torch.float64) / WIDTH ** 0.5).requires_grad_(),
               torch.zeros(1, WIDTH, dtype=torch.float64, requires_grad=True)]


def step(params):
    h = X
    for i in range(0, len(params), 2):
        h = torch.relu(h @ params[i] + params[i + 1])
    loss = ((h - Y) ** 2).mean()
    grads = torch.autograd.grad(loss, params)
    with torch.no_grad():
        return [(p - 0.01 * g).requires_grad_() for p, g in zip(params, grads)]


for _ in range(2):
    params = step(params)
c0, t0 = time.process_time(), time.perf_counter()
for _ in range(STEPS):
    params = step(params)
wall = (time.perf_counter() - t0) * 1000 / STEPS
cpu = (time.process_time() - c0) * 1000 / STEPS
print(f"(torch width {WIDTH} depth {DEPTH} steps {STEPS} wall-ms {wall:.4f} cpu-ms {cpu:.4f})")

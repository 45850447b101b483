#!/usr/bin/env bash
# run_tensor_bench.sh — runs the tensor training benchmark on both sides (Kiln:
# tensor_bench.lisp, interpreted graph-grad vs one graph-compile-grad kernel;
# PyTorch: tensor_torch_bench.py, 1 thread, float64) and writes the table into
# benchmarks/RESULTS.md under its own heading, keeping every other section.
#
#   benchmarks/run_tensor_bench.sh [KILN_BINARY]     (default: build/kiln)
#
# Exits 1 if Kiln's two final losses differ or PyTorch's agrees with them to
# fewer than 12 significant digits.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
kiln="${1:-$root/build/kiln}"
python="${PYTHON:-/usr/bin/python3}"
[ -x "$kiln" ] || { echo "run_tensor_bench: no Kiln binary at $kiln (build first, or pass its path)" >&2; exit 2; }

kiln_out="$("$kiln" "$here/tensor_bench.lisp")"
torch_out="$("$python" "$here/tensor_torch_bench.py")"
echo "$kiln_out"
echo "$torch_out"

KILN_OUT="$kiln_out" TORCH_OUT="$torch_out" KILN_BIN="$kiln" RESULTS="$here/RESULTS.md" "$python" - <<'PY'
import math, os, re, subprocess, datetime, platform

kiln = {}
for line in os.environ["KILN_OUT"].splitlines():
    m = re.match(r"(\S+ x\d+): graph-grad ([\d.]+) ms, compiled ([\d.]+) ms, ratio ([\d.]+)x, "
                 r"compile ([\d.]+) ms, final loss (\S+) \(graph-grad\) (\S+) \(compiled\): (\w+)", line)
    if m:
        kiln[m.group(1)] = m.groups()[1:]
torch = {}
for line in os.environ["TORCH_OUT"].splitlines():
    m = re.match(r"(\S+ x\d+): torch ([\d.]+) ms, final loss (\S+)", line)
    if m:
        torch[m.group(1)] = m.groups()[1:]

def digits(a, b):
    if a == b:
        return 17
    rel = abs(a - b) / max(abs(a), abs(b))
    return max(0, min(17, int(math.floor(-math.log10(rel)))))

cpu = "unknown CPU"
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip()
            break
except OSError:
    pass
level = subprocess.run([os.environ["KILN_BIN"], "--jit-check"], capture_output=True, text=True).stdout
lvl = re.search(r"CPU level (\S+)", level)
load = os.getloadavg()[0]

ok = True
rows = []
for case, (gi, gc, ratio, comp, li, lc, same) in kiln.items():
    tt, tl = torch.get(case, ("-", "nan"))
    d = digits(float(lc), float(tl))
    ok = ok and same == "identical" and d >= 12
    speed = f"{float(tt) / float(gc):.1f}x" if tt != "-" else "-"
    rows.append(f"| {case} | {gi} | {gc} | {ratio}x | {tt} | {speed} | {lc} | {tl} | {same} | {d} |")

section = f"""## Tensor training benchmark (tensor_bench)

Recorded {datetime.date.today()} by `benchmarks/run_tensor_bench.sh` (Release build).
CPU: {cpu}, {os.cpu_count()} cores; kernels compiled for `{lvl.group(1) if lvl else '?'}`;
load average {load:.1f} when it ran (the machine may be shared: compare columns of one row).
Workload: one layer, loss = mean((relu(x W + b) - t)^2), SGD lr 0.01 on W and b, gradients of all
five arguments every step; milliseconds for the whole run, median of 3 after a warm-up.
graph-grad = interpreted (traces and optimises on every call); compiled = one kernel from
graph-compile-grad (compile time not included). PyTorch 1 thread, float64.
"digits" = significant digits on which Kiln's and PyTorch's final losses agree
(they sum in different orders and PyTorch's matmul may fuse, so not all 17).

| case | graph-grad ms | compiled ms | ratio | PyTorch ms | PyTorch / compiled | final loss (Kiln, both paths) | final loss (PyTorch) | Kiln paths | digits |
|---|---:|---:|---:|---:|---:|---|---|---|---:|
""" + "\n".join(rows) + "\n"

path = os.environ["RESULTS"]
text = open(path).read() if os.path.exists(path) else "# Benchmark results\n"
start = text.find("## Tensor training benchmark (tensor_bench)")
if start >= 0:
    nxt = text.find("\n## ", start + 1)
    text = text[:start] + section + ("\n" + text[nxt + 1:] if nxt >= 0 else "")
else:
    text = text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
print(f"run_tensor_bench: wrote {path}")
if not ok:
    print("run_tensor_bench: FAILED: Kiln's paths differ or PyTorch agrees to fewer than 12 digits")
    raise SystemExit(1)
PY

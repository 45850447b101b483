#!/usr/bin/env python3
"""Gradients through `scan` (SPEC §15) against PyTorch float64 autograd: an Elman
RNN and a GRU cell run over a sequence, every parameter's gradient (and the
initial state's and the inputs') to 1e-12 relative, through graph-grad and
through jit. Skips (exit 0, saying so) where Debian's python3-torch is missing.

usage: rnn_scan.py KILN
"""
import random
import subprocess
import sys

try:
    import torch
except ImportError:
    print("rnn_scan: skipped (python3-torch is not installed)")
    sys.exit(0)

from kiln_text import T  # noqa: E402
from torch_agreement import agree, numbers  # noqa: E402

torch.set_default_dtype(torch.float64)
kiln = sys.argv[1]
rng = random.Random(29)


def rand(*shape):
    if len(shape) == 1:
        return [rng.uniform(-1, 1) for _ in range(shape[0])]
    return [rand(*shape[1:]) for _ in range(shape[0])]


STEPS, NIN, NH = 7, 3, 4
xs, h0 = rand(STEPS, NIN), rand(NH)
elman = {"u": rand(NH, NH), "w": rand(NIN, NH), "b": rand(NH)}
gru = {k: rand(NIN, NH) for k in ("wz", "wr", "wn")}
gru.update({k: rand(NH, NH) for k in ("uz", "ur", "un")})
gru.update({k: rand(NH) for k in ("bz", "br", "bn")})

KILN = f"""
(define xs {T(xs)})
(define h0 {T(h0)})
(define (elman-loss u w b h0 xs)
  (let ((r (scan (lambda (h x)
                   (let ((h2 (tensor-tanh (tensor-add (tensor-add (matmul h u) (matmul x w)) b))))
                     (cons h2 h2)))
                 h0 xs)))
    (+ (tensor-sum (tensor-mul (cdr r) (cdr r))) (tensor-sum (tensor-exp (car r))))))
(define (gru-loss p h0 xs)
  (define (at k) (cdr (assq k p)))
  (define (lin x w h u b) (tensor-add (tensor-add (matmul x (at w)) (matmul h (at u))) (at b)))
  (let ((r (scan (lambda (h x)
                   (let* ((z (tensor-sigmoid (lin x 'wz h 'uz 'bz)))
                          (rr (tensor-sigmoid (lin x 'wr h 'ur 'br)))
                          (n (tensor-tanh (tensor-add (tensor-add (matmul x (at 'wn)) (tensor-mul rr (matmul h (at 'un)))) (at 'bn))))
                          (h2 (tensor-add (tensor-mul (tensor-sub 1.0 z) n) (tensor-mul z h))))
                     (cons h2 (tensor-sum (tensor-mul h2 h2)))))
                 h0 xs)))
    (+ (tensor-sum (cdr r)) (tensor-mean (car r)))))
(define gp (list {" ".join(f"(cons '{k} {T(v)})" for k, v in gru.items())}))
(define (show r) (for-each (lambda (g) (write (if (number? g) g (tensor->list (reshape g (list (tensor-size g)))))) (newline)) r))
(define (show-tree r) (show (list (car r))) (for-each (lambda (e) (show (list (cdr e)))) (cadr r)) (show (cddr r)))
(define eu {T(elman["u"])}) (define ew {T(elman["w"])}) (define eb {T(elman["b"])})
(show (graph-grad elman-loss eu ew eb h0 xs))
(show ((jit (grad elman-loss)) eu ew eb h0 xs))
(show-tree (graph-grad gru-loss gp h0 xs))
(show-tree ((jit (grad gru-loss)) gp h0 xs))
"""
out = subprocess.run([kiln, "-e", KILN], capture_output=True, text=True, timeout=240)
if out.returncode != 0:
    print(out.stdout + out.stderr)
    sys.exit(1)
got = [line for line in out.stdout.split("\n") if line]


def flat(t):
    return t.detach().flatten().tolist() if t.dim() else [t.item()]


def leaf(v):
    return torch.tensor(v, requires_grad=True)


X, H0 = torch.tensor(xs), leaf(h0)
want = []
u, w, b = leaf(elman["u"]), leaf(elman["w"]), leaf(elman["b"])
Xe = X.clone().requires_grad_(True)
h, hs = H0, []
for t in range(STEPS):
    h = torch.tanh(h @ u + Xe[t] @ w + b)
    hs.append(h)
loss = (torch.stack(hs) ** 2).sum() + torch.exp(h).sum()
grads = torch.autograd.grad(loss, [u, w, b, H0, Xe])
elman_want = [("elman loss", [loss.item()])] + [(f"elman d{n}", flat(g)) for n, g in zip("u w b h0 xs".split(), grads)]
want += elman_want + elman_want

H0 = leaf(h0)
P = {k: leaf(v) for k, v in gru.items()}
Xg = X.clone().requires_grad_(True)
h, total = H0, 0.0
for t in range(STEPS):
    x = Xg[t]
    z = torch.sigmoid(x @ P["wz"] + h @ P["uz"] + P["bz"])
    r = torch.sigmoid(x @ P["wr"] + h @ P["ur"] + P["br"])
    n = torch.tanh(x @ P["wn"] + r * (h @ P["un"]) + P["bn"])
    h = (1 - z) * n + z * h
    total = total + (h * h).sum()
loss = total + h.mean()
names = list(gru)
grads = torch.autograd.grad(loss, [P[k] for k in names] + [H0, Xg])
gru_want = [("gru loss", [loss.item()])] + [(f"gru d{n}", flat(g)) for n, g in zip(names + ["h0", "xs"], grads)]
want += gru_want + gru_want


bad = 0
if len(got) != len(want):
    print(f"rnn_scan: expected {len(want)} lines from kiln, got {len(got)}:\n" + out.stdout)
    sys.exit(1)
for (label, w_vals), line in zip(want, got):
    k_vals = numbers(line)
    if not agree(k_vals, w_vals):
        bad += 1
        print(f"FAIL {label}: kiln {k_vals} torch {w_vals}")
print(f"rnn_scan: {len(want) - bad} of {len(want)} agree with PyTorch to 1e-12")
sys.exit(1 if bad else 0)

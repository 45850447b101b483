#!/usr/bin/env python3
"""The model building blocks and tree library of SPEC §14 against PyTorch float64:
linear, layer-norm and attention (rank 2, with and without a causal mask): the value
and the gradient of a weighted sum of it with respect to every input, from
graph-grad, from a compiled kernel (graph-compile-grad) and from jit of grad,
against torch.autograd at 1e-12 relative, and second derivatives of layer-norm and
attention (grad of a function of grad, against create_graph=True); global-norm and clip-by-global-norm
against the same formulas in torch; and ten steps of adamw-step on a named tree
(eager and jitted) against torch.optim.AdamW. Skips (exit 0, saying so) where
Debian's python3-torch is missing.

usage: models.py KILN
"""
import math
import subprocess
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("models: skipped (python3-torch is not installed)")
    sys.exit(0)

from nested_data import NestedData  # noqa: E402
from kiln_text import T, lisp  # noqa: E402
from torch_agreement import report_by_name  # noqa: E402

torch.set_default_dtype(torch.float64)
kiln = sys.argv[1]
data = NestedData(29, -2.0, 2.0)


def wsum(w, y):
    return (w * y).sum()


def torch_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s + mask
    return torch.softmax(s, -1) @ v


def second(loss_of, x):
    (g,) = torch.autograd.grad(loss_of(x), x, create_graph=True)
    return (g * g).sum()


def torch_causal(n):
    return torch.triu(torch.full((n, n), -math.inf), diagonal=1)


X, W, B = data(5, 4), data(4, 3), data(3)
Z, G, BETA = data(3, 6), data(6), data(6)
Z3 = data(2, 3, 5)
Q, K, V = data(4, 8), data(6, 8), data(6, 3)
QC, KC, VC = data(5, 4), data(5, 4), data(5, 2)
# Each case: name, Kiln (lambda (ARGS...) LOSS), arguments, the same loss in torch.
CASES = [
    ("linear", "(lambda (x w b wt) (tensor-sum (* wt (linear x w b))))", [X, W, B, data(5, 3)],
     lambda x, w, b, wt: wsum(wt, x @ w + b)),
    ("linear-tanh", "(lambda (x w b) (tensor-mean (square (tensor-tanh (linear x w b)))))", [X, W, B],
     lambda x, w, b: (torch.tanh(x @ w + b) ** 2).mean()),
    ("layer-norm", "(lambda (x g b wt) (tensor-sum (* wt (layer-norm x g b))))", [Z, G, BETA, data(3, 6)],
     lambda x, g, b, wt: wsum(wt, F.layer_norm(x, (6,), g, b))),
    ("layer-norm-eps", "(lambda (x g b wt) (tensor-sum (* wt (layer-norm x g b 0.1))))",
     [Z, G, BETA, data(3, 6)], lambda x, g, b, wt: wsum(wt, F.layer_norm(x, (6,), g, b, eps=0.1))),
    ("layer-norm-rank3", "(lambda (x g b) (tensor-sum (square (layer-norm x g b))))",
     [Z3, data(5), data(5)], lambda x, g, b: (F.layer_norm(x, (5,), g, b) ** 2).sum()),
    ("attention", "(lambda (q k v wt) (tensor-sum (* wt (attention q k v))))", [Q, K, V, data(4, 3)],
     lambda q, k, v, wt: wsum(wt, torch_attention(q, k, v))),
    ("attention-causal", "(lambda (q k v wt) (tensor-sum (* wt (attention q k v (causal-mask 5)))))",
     [QC, KC, VC, data(5, 2)], lambda q, k, v, wt: wsum(wt, torch_attention(q, k, v, torch_causal(5)))),
    ("attention-mask-arg", "(lambda (q k v m) (tensor-sum (square (attention q k v m))))",
     [Q, K, V, data(4, 6)], lambda q, k, v, m: (torch_attention(q, k, v, m) ** 2).sum()),
    # second derivatives: the gradient of |d loss / d first argument|^2
    ("layer-norm-second",
     "(lambda (x g b) (tensor-sum (square (cadr ((grad (lambda (x g b) (tensor-sum (* (tensor-tanh x) "
     "(layer-norm x g b))))) x g b)))))",
     [Z, G, BETA], lambda x, g, b: second(lambda x: (torch.tanh(x) * F.layer_norm(x, (6,), g, b)).sum(), x)),
    ("attention-second",
     "(lambda (q k v) (tensor-sum (square (cadr ((grad (lambda (q k v) (tensor-sum (square (attention q k v "
     "(causal-mask 5)))))) q k v)))))",
     [QC, KC, VC], lambda q, k, v: second(lambda q: (torch_attention(q, k, v, torch_causal(5)) ** 2).sum(), q)),
    ("global-norm", "(lambda (a b c) (global-norm (list (cons 'a a) (cons 'b (list b c)))))",
     [data(3, 2), data(4), 0.7], lambda a, b, c: torch.sqrt((a * a).sum() + (b * b).sum() + c * c)),
]
CASE_LOSS = "(define (emit-grads name f . args)\n" \
    "  (emit (string-append name \" grad\") (apply graph-grad f args))\n" \
    "  (emit (string-append name \" compiled\") (apply (apply graph-compile-grad f args) args))\n" \
    "  (emit (string-append name \" jit\") (apply (jit (grad f)) args)))"

# Values without gradients.
BIG = data(3, 4, lo=-5.0, hi=5.0)
VALUES = [
    ("clip-small", f"(clip-by-global-norm (list (cons 'a {T(BIG)}) (cons 'b 2.5)) 1.5)",
     lambda: clip_torch([torch.tensor(BIG), torch.tensor(2.5)], 1.5)),
    ("clip-none", f"(clip-by-global-norm (list (cons 'a {T(BIG)}) (cons 'b 2.5)) 1000.0)",
     lambda: clip_torch([torch.tensor(BIG), torch.tensor(2.5)], 1000.0)),
    ("causal-mask", "(tensor-where (causal-mask 4) -1.0 1.0)",
     lambda: torch.where(torch_causal(4) == 0, 1.0, -1.0)),
    ("layer-norm-value", f"(layer-norm {T(Z3)} 1.0 0.0)", lambda: F.layer_norm(torch.tensor(Z3), (5,))),
]


def clip_torch(leaves, max_norm):
    norm = torch.sqrt(sum((t * t).sum() for t in leaves))
    scale = min(1.0, max_norm / norm.item())
    return torch.cat([(t * scale).flatten() for t in leaves])


# adamw-step on a named regression model against torch.optim.AdamW.
STEPS = 10
AX, AY = data(6, 3), data(6, 2)
AW, AB = data(3, 2), data(2)
ADAMW = [
    ("adamw", "(adamw-step state params g 0.05)", lambda w, b: torch.optim.AdamW([w, b], lr=0.05, foreach=False)),
    ("adamw-options", "(adamw-step state params g 0.1 0.8 0.95 1e-6 0.3)",
     lambda w, b: torch.optim.AdamW([w, b], lr=0.1, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.3,
                                    foreach=False)),
    # a WD per leaf: PyTorch's parameter groups
    ("adamw-groups", "(adamw-step state params g 0.1 0.9 0.999 1e-8 '((w . 0.5) (b . 0.0)))",
     lambda w, b: torch.optim.AdamW([{"params": [w], "weight_decay": 0.5}, {"params": [b], "weight_decay": 0.0}],
                                    lr=0.1, foreach=False)),
]

lines = ["""
(define (emit name . vals)
  (display name)
  (for-each (lambda (v)
              (let walk ((v v))
                (cond ((tensor? v) (walk (tensor->list v)))
                      ((symbol? v) #t)
                      ((pair? v) (walk (car v)) (walk (cdr v)))
                      ((null? v) #t)
                      (else (display " ") (write v)))))
            vals)
  (newline))
""", CASE_LOSS]
for name, fn, args, _ in CASES:
    argv = " ".join(T(a) if isinstance(a, list) else repr(float(a)) for a in args)
    lines.append(f"(emit-grads \"{name}\" {fn} {argv})")
for name, expr, _ in VALUES:
    lines.append(f"(emit \"{name}\" {expr})")
lines.append(f"""
(define ax {T(AX)})
(define ay {T(AY)})
(define (loss params)
  (tensor-mean (square (- (linear ax (tree-ref params 'w) (tree-ref params 'b)) ay))))
(define (run name step)
  (let loop ((i 0) (params (list (cons 'w {T(AW)}) (cons 'b {T(AB)}))) (state #f))
    (let ((state (or state (adam-init params))))
      (if (< i {STEPS})
          (let ((r (step state params)))
            (emit (string-append name " step " (number->string (+ i 1))) (car r))
            (loop (+ i 1) (car r) (cdr r)))))))
""")
for name, call, _ in ADAMW:
    step = f"(lambda (state params) (let ((g (cadr ((grad loss) params)))) {call}))"
    lines.append(f"(run \"{name} eager\" {step})")
    lines.append(f"(run \"{name} jit\" (jit {step}))")

out = subprocess.run([kiln, "-e", "\n".join(lines)], capture_output=True, text=True, timeout=600)
if out.returncode != 0:
    print(out.stdout + out.stderr)
    sys.exit(1)
got = {}
for line in out.stdout.splitlines():
    words = line.split(" ")
    if len(words) > 2 and words[2] == "step":
        k = 4
    elif len(words) > 1 and words[1] in ("grad", "compiled", "jit"):
        k = 2
    else:
        k = 1
    got[" ".join(words[:k])] = [float(w) for w in words[k:]]

want = {}
for name, _, args, torch_fn in CASES:
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]
    loss = torch_fn(*ts)
    loss.backward()
    vals = [loss.item()]
    for t in ts:
        vals += t.grad.flatten().tolist()
    for path in ("grad", "compiled", "jit"):
        want[f"{name} {path}"] = vals
for name, _, torch_fn in VALUES:
    want[name] = [float(v) for v in torch_fn().flatten().tolist()]
for name, _, make in ADAMW:
    w = torch.tensor(AW, requires_grad=True)
    b = torch.tensor(AB, requires_grad=True)
    opt = make(w, b)
    x, y = torch.tensor(AX), torch.tensor(AY)
    for i in range(STEPS):
        opt.zero_grad()
        ((x @ w + b - y) ** 2).mean().backward()
        opt.step()
        vals = w.detach().flatten().tolist() + b.detach().flatten().tolist()
        want[f"{name} eager step {i + 1}"] = vals
        want[f"{name} jit step {i + 1}"] = vals

sys.exit(report_by_name("models", want, got))

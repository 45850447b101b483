#!/usr/bin/env python3
"""Differential fuzzer: every path that computes a traced function must agree.

usage: diff_fuzz.py --kiln KILN [--seed S] [--count N | --minutes M] [--out DIR] ...

Generates random programs: a function F of up to 8 parameters (numbers, rank-0
tensors and tensors of rank 1-3, with broadcasting pairs), whose body is a random
expression tree over every traceable op (the element-wise tensor builtins, the
generic arithmetic `+ - * / max min expt abs sqrt exp log sin cos tan square 1+ 1-`,
`tensor-sum/mean/max` with and without axes and keepdims, `matmul`, `transpose`,
`reshape`, `tensor-slice`, `concat`, `if` over comparisons, which traces to a
select, and the ops of SPEC §13 that compute on tensors: `softmax` and `log-softmax`
(any axis), `tensor-argmax`, `tensor-take` (constant indices with repeats),
`tensor-where`, `tensor-clip` (constant bounds), `cross-entropy` (constant class
labels) and `mse`; and those of SPEC §14: `matmul` with batch axes (broadcast, ranks up
to 4), `conv2d`, `conv1d`, `max-pool2d` and `avg-pool2d` (odd sizes, strides, paddings,
dilations; their rank-4 operands come from any op), `tensor-gelu`, `tensor-min`,
`tensor-var`, the comparisons `tensor-eq/lt/le/gt/ge`, `dropout` (rates 0 to 0.9),
`tensor-rand` and `tensor-randn` (constant keys, some from `random-split`), the library's
`layer-norm`, `linear` and `attention` (with and without a mask, `causal-mask`), and
tree ops inside traced code (`tree-ref` into association lists, `global-norm`,
`tree-reduce`, `clip-by-global-norm`); SPEC §15's loops (a `fori-loop` over a captured
value and the step index, a `scan` over a generated sequence giving its final carry plus
its summed Ys, and a `while-loop` whose trip count depends on the data, used as that
count, a piecewise constant, under `stop-gradient` since graph-grad refuses a
while-loop); packed arguments may be association lists; not stop-gradient otherwise, which finite differences cannot check (it is
tested through softmax), nor the constructors one-hot, random-permutation, he-normal
and glorot-uniform, whose values are constants in a trace), a loss L = sum(F * W)
with a constant W, and two input sets: A on a coarse
grid with ties, zeros, signed zeros and (in some programs) NaN and infinities, B
random. Many programs go into one kiln process (each call wrapped in try-catch, each
value printed with `write`, so floats are exact). Checks per program:

  * eager F == graph-eval F (inputs A and B), eager L == graph-eval L ==
    graph-grad's loss, all bit for bit (textually);
  * graph-compile F == graph-eval F and graph-compile-grad L == graph-grad L bit for
    bit, each kernel compiled once and applied to A and to B;
  * the same output with KILN_THREADS=1 and 2 (programs with a matmul big enough to
    be split over threads, and a sample of the others);
  * graph-grad's gradient against central finite differences of graph-eval L at up
    to 8 elements per input set, skipping elements where the one-sided differences
    disagree (a kink, a tie, a select boundary) or anything is non-finite, and
    (where PyTorch is there to tell) elements of programs whose forward meets a tie
    of maximum/minimum/max: a select boundary feeding a tie can leave both one-sided
    differences flat while the subgradient is not;
  * where `import torch` works, graph-grad's gradient on B against PyTorch float64
    autograd (normwise relative 1e-10), skipping programs whose forward hits a tie of
    maximum/minimum/max, a NaN operand of those, or a zero base of pow.
  * trees: FT is F with 2-3 adjacent parameters packed into a list or a vector (one
    level nested at times) that it takes apart with car/cadr/caddr/vector-ref; FR
    returns a tree of F's value and L (lists, vectors, `()`); LT is L on FT's
    arguments. eager FR == graph-eval FR (A and B), FR's first leaf == graph-eval F,
    graph-grad LT and ((grad LT ARGNUMS) ...) (ARGNUMS an index or a list in any
    order, on A and B) == graph-grad L's loss and gradients arranged like the
    arguments, all bit for bit;
  * jit: the FRs of up to 10 programs as one procedure, each called with its own
    list of (tree) arguments, jitted; applied to A twice and to B (one signature)
    it equals graph-eval bit for bit, and (jit-kernels J) holds one kernel;
  * second derivatives, for programs without kinks or selects (20% are generated
    so): g(x) is L with one number parameter replaced by x (or, without one, with
    x added to every element of a parameter, at x = 0), on input set B;
    ((grad (lambda (x) (cadr ((grad g) x)))) x0) gives g'(x0), which must equal
    graph-grad's bit for bit, and g''(x0), against central differences of
    graph-grad's g' (step 2^-16 relative, tolerance 1e-4 relative), skipped where
    the one-sided differences disagree or anything is non-finite.

A value on one path and an error on another is a failure; the same error on every
path is fine. A failure is shrunk (subtrees replaced by operands or leaves, unused
parameters dropped, inputs simplified) and written as a small reproducer .lisp to
--out (default ./diff-fuzz-failures). Exit status 1 if anything failed.

Differences by design are not reported unless --strict (docs/graph.md): an eager
comparison of a tensor (an error: a comparison takes numbers) that a traced `if` turns
into a select; an error raised while tracing the branch of an `if` that the eager call
does not take (both branches are traced); a rank-0 tensor from a traced `if` whose
eager call returned a number (the select broadcasts a number branch with a rank-0
tensor branch); and non-finite gradients in programs using pow/expt/max/min/maximum,
where the finite differences straddle a kink.
"""
import argparse
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MAX_PARAMS = 8
GRID = [x / 8 for x in range(-16, 17)]  # -2 .. 2 step 0.125: exact, many ties
W_VALUES = [-2.0, -1.5, -1.0, -0.75, -0.5, 0.25, 0.5, 0.75, 1.0, 1.25, 2.0, 2.75]
NUM_CONSTS = [0.0, -0.0, 0.5, 1.0, 2.0, 3.0, -1.0, -1.5, 0.125, 0.25, 1e-3, 10.0]
POW_EXPONENTS = [2.0, 3.0, 0.5, -1.0, 1.5, 0.0, 1.0, -2.0]
SMOOTH_FRACTION = 0.2  # programs without kinks or selects, for second derivatives

UNARY_TENSOR = ["tensor-neg", "tensor-exp", "tensor-log", "tensor-sqrt", "tensor-tanh",
                "tensor-sigmoid", "relu", "tensor-abs", "tensor-gelu", "dropout"]
UNARY_GENERIC = ["abs", "sqrt", "exp", "log", "sin", "cos", "tan", "square", "1+", "1-",
                 "-", "/"]
BINARY_TENSOR = ["tensor-add", "tensor-sub", "tensor-mul", "tensor-div", "tensor-pow",
                 "tensor-maximum", "tensor-eq", "tensor-lt", "tensor-le", "tensor-gt", "tensor-ge"]
# SPEC §14's comparisons: 1.0/0.0, no gradient (torch: the comparison as a double).
TENSOR_COMPARE = {"tensor-eq": "eq", "tensor-lt": "lt", "tensor-le": "le", "tensor-gt": "gt", "tensor-ge": "ge"}
# (dropout X DROPOUT_RATE DROPOUT_KEY): a constant key, so a constant mask in a trace.
DROPOUT_RATE, DROPOUT_KEY = 0.25, 7
# Keys of dropout, tensor-rand and tensor-randn: exact integers, some from random-split
# (SPEC §14), so the same numbers must come out eagerly, interpreted and compiled.
RANDOM_KEYS = ["7", "0", "12345", "(car (random-split 3 2))", "(list-ref (random-split 9 4) 3)",
               "(cadr (random-split (car (random-split 5 3)) 2))"]
BINARY_GENERIC = ["+", "-", "*", "/", "max", "min", "expt"]
VARIADIC = ["+", "-", "*", "/", "max", "min"]
REDUCE = ["tensor-sum", "tensor-mean", "tensor-max", "tensor-min", "tensor-var"]
COMPARE = ["<", "<=", ">", ">=", "="]
DOMAIN = ["tensor-log", "tensor-sqrt", "log", "sqrt"]  # like their inputs positive


# ---------------------------------------------------------------------------
# Program model
# ---------------------------------------------------------------------------

class Node:
    """One expression. kind: param const ctensor un bin red matmul transpose reshape
    slice concat select. shape: the traced shape (a tuple)."""
    __slots__ = ("kind", "name", "kids", "extra", "shape")

    def __init__(self, kind, name, kids, extra, shape):
        self.kind, self.name, self.kids, self.extra, self.shape = kind, name, kids, extra, shape

    def size(self):
        return 1 + sum(k.size() for k in self.kids)

    def walk(self):
        yield self
        for k in self.kids:
            yield from k.walk()


def prod(dims):
    p = 1
    for d in dims:
        p *= d
    return p


def fmt_float(x):
    if math.isnan(x):
        return "+nan.0"
    if math.isinf(x):
        return "+inf.0" if x > 0 else "-inf.0"
    r = repr(float(x))
    return r.replace("e+", "e")


def nested(flat, shape):
    if not shape:
        return fmt_float(flat[0])
    step = prod(shape[1:])
    return "(" + " ".join(nested(flat[i * step:(i + 1) * step], shape[1:])
                          for i in range(shape[0])) + ")"


def tensor_literal(flat, shape):
    if not shape:
        return f"(tensor {fmt_float(flat[0])})"
    return f"(tensor '{nested(flat, shape)})"


class Param:
    """A parameter: shape None is a number, () a rank-0 tensor. `big` parameters are
    made in Lisp with tensor-randn (their values are not known here)."""
    __slots__ = ("shape", "a", "b", "big")

    def __init__(self, shape, a, b, big=False):
        self.shape, self.a, self.b, self.big = shape, a, b, big

    def lisp(self, which):
        if self.big:
            return f"(tensor-randn '({' '.join(map(str, self.shape))}) {self.a if which == 'a' else self.b})"
        vals = self.a if which == "a" else self.b
        if self.shape is None:
            return fmt_float(vals[0])
        return tensor_literal(vals, self.shape)


class Program:
    __slots__ = ("body", "params", "w", "w_shape", "ident", "compile_fwd", "compile_own",
                 "tree_seed", "jit_own")

    def __init__(self, body, params, w, w_shape, ident=0, tree_seed=0):
        self.body, self.params, self.w, self.w_shape, self.ident = body, params, w, w_shape, ident
        self.compile_fwd = False  # graph-compile F (each kernel costs ~0.5 s of gcc)
        self.compile_own = False  # graph-compile-grad L on its own, not only in a group
        # The tree plan (tree_plan) derives from this seed and the parameters, so a
        # shrunk program gets a plan that fits its own parameters.
        self.tree_seed = tree_seed
        self.jit_own = False  # (jit FR) on its own, not only in a group

    def size(self):
        return self.body.size()

    def big(self):
        return any(p.big for p in self.params)


def to_lisp(n):
    k = n.kind
    if k == "param":
        return f"p{n.extra}"
    if k == "const":
        return fmt_float(n.extra)
    if k == "ctensor":
        return tensor_literal(n.extra, n.shape)
    if k == "un" and n.name == "dropout":
        rate, key = n.extra or (DROPOUT_RATE, DROPOUT_KEY)
        return f"(dropout {to_lisp(n.kids[0])} {rate} {key})"
    if k == "rand":  # extra: the key as written
        return f"({n.name} '({' '.join(map(str, n.shape))}) {n.extra})"
    if k == "lib":  # layer-norm, linear, attention (stdlib/models.lisp); extra: the tail as written
        return f"({n.name} {' '.join(to_lisp(c) for c in n.kids)}{n.extra or ''})"
    if k == "tree":  # extra: (template, path); the template's {i} are the kids
        template, _ = n.extra
        return template.format(*[to_lisp(c) for c in n.kids])
    if k == "loop":
        init, other = (to_lisp(c) for c in n.kids)
        (steps,) = n.extra
        if n.name == "fori-loop":
            return (f"(fori-loop {steps} (lambda (i c) (tensor-tanh (tensor-add (tensor-mul c 0.5) "
                    f"(tensor-mul {other} (+ 1.0 i))))) {init})")
        if n.name == "scan":
            return ("(let ((r (scan (lambda (c x) (let ((h (tensor-tanh (tensor-add (tensor-mul c 0.5) x)))) "
                    f"(cons h (tensor-mul h x)))) {init} {other}))) (tensor-add (car r) (tensor-sum (cdr r) 0)))")
        return (f"(tensor-mul {other} (stop-gradient (cadr (while-loop (lambda (c) (< (+ (cadr c) (tensor-mean (car c))) "
                f"{steps}.0)) (lambda (c) (list (tensor-tanh (tensor-add (tensor-mul (car c) 0.5) {other})) "
                f"(+ (cadr c) 1.0))) (list {init} 0.0)))))")
    if k in ("un", "bin"):
        return f"({n.name} {' '.join(to_lisp(c) for c in n.kids)})"
    if k == "red":
        axis, keep = n.extra
        tail = "" if axis is None else f" {axis}" + (" #t" if keep else "")
        return f"({n.name} {to_lisp(n.kids[0])}{tail})"
    if k == "matmul":
        return f"(matmul {to_lisp(n.kids[0])} {to_lisp(n.kids[1])})"
    if k == "window":  # extra: the optional arguments as written
        args = " ".join(to_lisp(c) for c in n.kids)
        opts = "".join(" " + (str(v) if isinstance(v, int) else f"'({v[0]} {v[1]})") for v in n.extra)
        return f"({n.name} {args}{opts})"
    if k == "transpose":
        if n.extra is None:
            return f"(transpose {to_lisp(n.kids[0])})"
        return f"(transpose {to_lisp(n.kids[0])} '({' '.join(map(str, n.extra))}))"
    if k == "reshape":
        return f"(reshape {to_lisp(n.kids[0])} '({' '.join(map(str, n.extra))}))"
    if k == "slice":
        axis, start, end = n.extra
        return f"(tensor-slice {to_lisp(n.kids[0])} {axis} {start} {end})"
    if k == "concat":
        items = " ".join(to_lisp(c) for c in n.kids)
        return f"(concat (list {items}))" if n.extra is None else f"(concat (list {items}) {n.extra})"
    if k == "select":
        ncmp = n.extra
        test = f"({n.name} {' '.join(to_lisp(c) for c in n.kids[:ncmp])})"
        return f"(if {test} {to_lisp(n.kids[ncmp])} {to_lisp(n.kids[ncmp + 1])})"
    if k in ("axisop", "argmax"):  # extra: the axis as written, or None for the default
        tail = "" if n.extra is None else f" {n.extra}"
        return f"({n.name} {to_lisp(n.kids[0])}{tail})"
    if k == "take":
        _, idx, shown = n.extra
        tail = "" if shown is None else f" {shown}"
        return f"(tensor-take {to_lisp(n.kids[0])} '({' '.join(map(str, idx))}){tail})"
    if k == "where":
        return f"(tensor-where {' '.join(to_lisp(c) for c in n.kids)})"
    if k == "clip":
        lo, hi = n.extra
        return f"(tensor-clip {to_lisp(n.kids[0])} {fmt_float(lo)} {fmt_float(hi)})"
    if k == "loss":
        if n.name == "cross-entropy":
            return f"(cross-entropy {to_lisp(n.kids[0])} '({' '.join(map(str, n.extra))}))"
        return f"(mse {to_lisp(n.kids[0])} {to_lisp(n.kids[1])})"
    raise ValueError(k)


# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------

KINKS = {"while-loop", "max-pool2d", "clip-by-global-norm", "relu", "tensor-abs", "abs", "tensor-maximum", "max", "min", "tensor-max", "tensor-argmax",
         "tensor-clip", "tensor-where", "tensor-min", "dropout"} | set(TENSOR_COMPARE)


def smooth(prog):
    """No kinks or selects: second derivatives exist wherever the function is finite."""
    return all(n.name not in KINKS and n.kind != "select" for n in prog.body.walk())


class Gen:
    def __init__(self, rng, special, smooth=False):
        self.rng = rng
        self.params = []
        self.special = special  # NaN/inf allowed in input set A
        self.smooth = smooth  # no op from KINKS and no select (second-derivative checks)
        self.budget = rng.choice([12, 20, 30, 40])  # operations per program, at most

    def dim(self):
        return self.rng.choice([1, 2, 2, 3, 3, 4, 5])

    def shape(self, rank=None):
        if rank is None:
            rank = self.rng.choice([0, 1, 1, 2, 2, 2, 3])
        return tuple(self.dim() for _ in range(rank))

    def values_a(self, n):
        rng = self.rng
        out = []
        base = [rng.choice(GRID) for _ in range(max(1, min(n, 4)))]
        for _ in range(n):
            r = rng.random()
            if r < 0.25:
                out.append(rng.choice(base))  # ties within and across tensors
            elif r < 0.32:
                out.append(rng.choice([0.0, -0.0]))
            elif self.special and r < 0.38:
                out.append(rng.choice([math.nan, math.inf, -math.inf]))
            else:
                out.append(rng.choice(GRID))
        return out

    def values_b(self, n):
        return [self.rng.uniform(-2, 2) for _ in range(n)]

    def new_param(self, shape, number=False):
        n = 1 if number else prod(shape)
        p = Param(None if number else shape, self.values_a(n), self.values_b(n))
        self.params.append(p)
        return Node("param", None, [], len(self.params) - 1, shape)

    def leaf(self, shape, want_tensor=False):
        rng = self.rng
        if not shape:
            r = rng.random()
            if r < 0.25 and not want_tensor:
                return Node("const", None, [], rng.choice(NUM_CONSTS), ())
            if r < 0.35:
                return Node("ctensor", None, [], [rng.choice(GRID)], ())
            same = [i for i, p in enumerate(self.params)
                    if p.shape == () or (p.shape is None and not want_tensor)]
            if same and (rng.random() < 0.5 or len(self.params) >= MAX_PARAMS):
                return Node("param", None, [], rng.choice(same), ())
            if len(self.params) >= MAX_PARAMS:
                return Node("ctensor", None, [], [rng.choice(GRID)], ())
            return self.new_param((), number=(not want_tensor and rng.random() < 0.5))
        same = [i for i, p in enumerate(self.params) if p.shape == shape]
        if rng.random() < 0.12 or (len(self.params) >= MAX_PARAMS and not same):
            return Node("ctensor", None, [], [rng.choice(GRID) for _ in range(prod(shape))], shape)
        if same and (rng.random() < 0.4 or len(self.params) >= MAX_PARAMS):
            return Node("param", None, [], rng.choice(same), shape)
        return self.new_param(shape)

    def broadcast_pair(self, shape):
        """Two operand shapes whose broadcast is exactly `shape`."""
        rng = self.rng
        r = len(shape)
        a = list(shape)
        if r and rng.random() < 0.5:
            drop = rng.randint(0, r)
            a = [1 if rng.random() < 0.3 else d for d in shape[drop:]]
            a = [None] * drop + a
        else:
            a = [None] * 0 + a
        a = [None] * (r - len(a)) + a
        # b must supply every dimension a does not, and the full rank if a is shorter
        b = []
        dropping = rng.random() < 0.5 and a[0] is not None if r else False
        for i, d in enumerate(shape):
            need = d != 1 and (a[i] is None or a[i] == 1)
            if dropping and not need:
                b.append(None)
                continue
            dropping = False
            b.append(d if need or rng.random() < 0.7 else 1)
        sa = tuple(x for x in a if x is not None)
        sb = tuple(x for x in b if x is not None)
        if rng.random() < 0.5:
            sa, sb = sb, sa
        return sa, sb

    def gen(self, shape, depth, want_tensor=False):
        rng = self.rng
        if depth <= 0 or self.budget <= 0 or rng.random() < 0.12:
            return self.leaf(shape, want_tensor)
        self.budget -= 1
        choices = ["un", "un", "bin", "bin", "bin", "var", "red", "select"]
        r = len(shape)
        if r >= 1:
            choices += ["slice", "concat", "reshape", "red"]
        if r in (0, 1, 2, 3, 4):
            choices += ["matmul", "matmul"]
        if r in (2, 3, 4):  # SPEC §14: convolutions and pooling
            choices += ["window", "window"]
        if r in (2, 3):
            choices += ["transpose"]
        # SPEC §13 ops
        choices += ["where", "clip"]
        if r >= 1:
            choices += ["axisop", "take"]
        if r <= 2:
            choices += ["argmax"]
        if r == 0:
            choices += ["loss"]
        # SPEC §14: random numbers with constant keys, the Kiln library, trees
        if r >= 1:
            choices += ["rand", "lib", "lib"]
        choices += ["tree"]
        if r >= 1:  # SPEC §15: fori-loop, scan, while-loop (a carry of this shape)
            choices += ["loop"]
        if self.smooth:
            choices = [c for c in choices if c not in ("select", "where", "clip", "argmax")]
        kind = rng.choice(choices)
        if want_tensor and kind in ("un", "bin", "var", "select", "where", "clip", "loss") and not shape:
            kind = "red"
        if kind == "un":
            name = self.pick(UNARY_TENSOR + UNARY_GENERIC)
            kid = self.gen(shape, depth - 1, want_tensor)
            if name in DOMAIN and rng.random() < 0.5:
                kid = Node("un", self.pick(["tensor-exp", "tensor-abs", "tensor-sigmoid", "square"]),
                           [kid], None, shape)
            extra = None
            if name == "dropout":
                extra = (rng.choice([0.25, 0.5, 0.0, 0.9]), rng.choice(RANDOM_KEYS))
            return Node("un", name, [kid], extra, shape)
        if kind == "rand":
            noise = Node("rand", rng.choice(["tensor-rand", "tensor-randn"]), [], rng.choice(RANDOM_KEYS), shape)
            return Node("bin", rng.choice(["tensor-add", "tensor-mul", "+", "*"]),
                        [self.gen(shape, depth - 1), noise], None, shape)
        if kind == "lib":
            return self.library(shape, depth)
        if kind == "tree":
            return self.tree_op(shape, depth, want_tensor)
        if kind == "loop":
            return self.loop(shape, depth)
        if kind == "bin":
            name = self.pick(BINARY_TENSOR + BINARY_GENERIC)
            sa, sb = self.broadcast_pair(shape)
            a = self.gen(sa, depth - 1)
            if name in ("tensor-pow", "expt") and rng.random() < 0.6:
                b = Node("const", None, [], rng.choice(POW_EXPONENTS), ())
                if sa != shape:
                    a = self.gen(shape, depth - 1)
            else:
                b = self.gen(sb, depth - 1)
            return Node("bin", name, [a, b], None, shape)
        if kind == "var":
            name = self.pick(VARIADIC)
            kids = []
            sa, sb = self.broadcast_pair(shape)
            kids = [self.gen(sa, depth - 1), self.gen(sb, depth - 1), self.gen(rng.choice([sa, sb, shape]), depth - 1)]
            return Node("bin", name, kids, None, shape)
        if kind == "red":
            name = self.pick(REDUCE)
            if not shape and rng.random() < 0.6:
                src = self.shape(rng.choice([1, 2, 3]))
                return Node("red", name, [self.gen(src, depth - 1, True)], (None, False), shape)
            if r >= 3:
                return self.leaf(shape, want_tensor)
            axis = rng.randint(0, r)
            keep = r >= 1 and shape[min(axis, r - 1)] == 1 and rng.random() < 0.5
            if keep:
                axis = min(axis, r - 1)
                src = list(shape)
                src[axis] = self.dim()
            else:
                src = list(shape)
                src.insert(axis, self.dim())
            src = tuple(src)
            shown = axis - len(src) if rng.random() < 0.25 else axis
            return Node("red", name, [self.gen(src, depth - 1, True)], (shown, keep), shape)
        if kind == "matmul":
            k = self.dim()
            if r >= 3:
                # batch axes: each operand's own (fewer, or 1s that broadcast), or none
                m, n = shape[-2:]
                batch = shape[:-2]
                ba, bb = self.broadcast_pair(batch)
                if rng.random() < 0.25:
                    ba, bb = batch, ()
                sa, sb = ba + (m, k), bb + (k, n)
                if rng.random() < 0.15 and n == 1:
                    return self.matmul_vector(shape, batch + (m, k), (k,), depth)
                return Node("matmul", None, [self.gen(sa, depth - 1, True), self.gen(sb, depth - 1, True)],
                            None, shape)
            if r == 2:
                m, n = shape
                sa, sb = (m, k), (k, n)
            elif r == 1:
                (n,) = shape
                sa, sb = ((k,), (k, n)) if rng.random() < 0.5 else ((n, k), (k,))
            else:
                sa, sb = (k,), (k,)
            return Node("matmul", None, [self.gen(sa, depth - 1, True), self.gen(sb, depth - 1, True)],
                        None, shape)
        if kind == "window":
            return self.window(shape, depth)
        if kind == "transpose":
            if r == 2 and rng.random() < 0.6:
                perm = None if rng.random() < 0.6 else [1, 0]
                src = (shape[1], shape[0])
            else:
                perm = list(range(r))
                rng.shuffle(perm)
                src = [0] * r
                for i, p in enumerate(perm):
                    src[p] = shape[i]
                src = tuple(src)
            return Node("transpose", None, [self.gen(src, depth - 1, True)], perm, shape)
        if kind == "reshape":
            total = prod(shape)
            src = self.factor(total)
            spec = list(shape)
            if spec and rng.random() < 0.4:
                spec[rng.randrange(len(spec))] = -1
            return Node("reshape", None, [self.gen(src, depth - 1, True)], spec, shape)
        if kind == "slice":
            axis = rng.randrange(r)
            extra = rng.choice([0, 1, 1, 2, 3])
            start = rng.randint(0, extra)
            src = list(shape)
            src[axis] += extra
            shown = axis - r if rng.random() < 0.2 else axis
            return Node("slice", None, [self.gen(tuple(src), depth - 1, True)],
                        (shown, start, start + shape[axis]), shape)
        if kind == "concat":
            axis = rng.randrange(r)
            total = shape[axis]
            if total < 2:
                return self.gen(shape, depth, want_tensor)
            parts = []
            left = total
            while left > 0 and len(parts) < 3:
                take = rng.randint(1, left) if len(parts) < 2 else left
                parts.append(take)
                left -= take
            if left:
                parts[-1] += left
            kids = []
            for p in parts:
                s = list(shape)
                s[axis] = p
                kids.append(self.gen(tuple(s), depth - 1, True))
            if axis == 0 and rng.random() < 0.3:
                shown = None
            else:
                shown = axis - r if rng.random() < 0.2 else axis
            return Node("concat", None, kids, shown, shape)
        if kind == "select":
            name = rng.choice(COMPARE)
            ncmp = 3 if rng.random() < 0.15 else 2
            if rng.random() < 0.5:
                cmps = [self.gen((), depth - 2) for _ in range(ncmp)]
            else:
                cmps = [self.gen(s, depth - 2) for s in self.broadcast_pair(shape)]
                if ncmp == 3:
                    cmps.append(self.gen(shape, depth - 2))
            then = self.gen(shape, depth - 1)
            other = self.gen(shape, depth - 1)
            return Node("select", name, cmps + [then, other], len(cmps), shape)
        if kind == "axisop":
            name = rng.choice(["softmax", "log-softmax"])
            axis = None if rng.random() < 0.4 else rng.randrange(-r, r)
            return Node("axisop", name, [self.gen(shape, depth - 1, True)], axis, shape)
        if kind == "argmax":
            axis = rng.randint(0, r)  # where the reduced axis sits in the source
            src = list(shape)
            src.insert(axis, self.dim())
            shown = None if axis == r and rng.random() < 0.5 else (axis - r - 1 if rng.random() < 0.25 else axis)
            return Node("argmax", "tensor-argmax", [self.gen(tuple(src), depth - 1, True)], shown, shape)
        if kind == "take":
            axis = rng.randrange(r)
            src = list(shape)
            src[axis] = self.dim()
            idx = [rng.randrange(src[axis]) for _ in range(shape[axis])]  # repeats add up in the gradient
            shown = None if axis == 0 and rng.random() < 0.4 else (axis - r if rng.random() < 0.2 else axis)
            return Node("take", "tensor-take", [self.gen(tuple(src), depth - 1, True)], (axis, idx, shown), shape)
        if kind == "where":
            sa, sb = self.broadcast_pair(shape)
            sc = rng.choice([sa, sb, shape, ()])
            kids = [self.gen(sc, depth - 2), self.gen(sa, depth - 1), self.gen(sb, depth - 1)]
            return Node("where", "tensor-where", kids, None, shape)
        if kind == "clip":
            lo = rng.choice([-1.5, -1.0, -0.5, 0.0, 0.25])
            hi = lo + rng.choice([0.5, 1.0, 1.75, 3.0])
            return Node("clip", "tensor-clip", [self.gen(shape, depth - 1, want_tensor)], (lo, hi), shape)
        if kind == "loss":
            if rng.random() < 0.5:
                rows, classes = self.dim(), self.dim()
                labels = [rng.randrange(classes) for _ in range(rows)]
                return Node("loss", "cross-entropy", [self.gen((rows, classes), depth - 1, True)], labels, shape)
            s = self.shape()
            return Node("loss", "mse", [self.gen(s, depth - 1), self.gen(s, depth - 1)], None, shape)
        raise ValueError(kind)

    def library(self, shape, depth):
        """layer-norm, linear or attention (stdlib/models.lisp) giving `shape` (rank >= 1)."""
        rng = self.rng
        r = len(shape)
        name = rng.choice(["layer-norm", "linear"] + (["attention", "attention"] if r >= 2 else []))
        if name == "layer-norm":
            d = shape[-1]
            gb = [self.gen(rng.choice([(d,), (d,), ()]), depth - 1) for _ in range(2)]
            eps = rng.choice([None, None, "1e-5", "0.0", "0.5"])
            return Node("lib", name, [self.gen(shape, depth - 1, True)] + gb, f" {eps}" if eps else None, shape)
        if name == "linear":
            k = self.dim()
            kids = [self.gen(shape[:-1] + (k,), depth - 1, True), self.gen((k, shape[-1]), depth - 1, True)]
            if rng.random() < 0.7:
                kids.append(self.gen(rng.choice([(shape[-1],), (), shape]), depth - 1))
            return Node("lib", name, kids, None, shape)
        batch, (t, dv) = shape[:-2], shape[-2:]
        d, s = self.dim(), rng.choice([t, t, self.dim()])
        kb = batch[rng.randint(0, len(batch)):]  # K and V may broadcast over fewer leading axes
        kids = [self.gen(batch + (t, d), depth - 1, True), self.gen(kb + (s, d), depth - 1, True),
                self.gen(kb + (s, dv), depth - 1, True)]
        tail = None
        mask = rng.random()
        if mask < 0.3 and s == t:
            tail = f" (causal-mask {t})"
        elif mask < 0.55:
            kids.append(self.gen(rng.choice([(t, s), (1, s), (t, 1)]), depth - 2, True))
        return Node("lib", name, kids, tail, shape)

    def tree_op(self, shape, depth, want_tensor):
        """A value taken from a tree built in the traced code: tree-ref into an
        association list (and a list inside it), the first leaf of clip-by-global-norm,
        or, for a number, global-norm / tree-reduce over the leaves."""
        rng = self.rng
        r = len(shape)
        other = lambda: self.gen(self.shape(), depth - 2)
        pick = rng.random()
        if r == 0 and not want_tensor and pick < 0.4:
            kids = [self.gen(self.shape(rng.choice([1, 2])), depth - 1, True), other()]
            if rng.random() < 0.5:
                return Node("tree", "global-norm", kids, ("(global-norm (list {0} (list (cons 'b {1}))))", None), shape)
            return Node("tree", "tree-reduce", kids,
                        ("(tree-reduce (lambda (acc x) (+ acc (tensor-mean x))) 0.0 (list (cons 'a {0}) (cons 'b (vector {1}))))",
                         None), shape)
        if pick < 0.7:
            kids = [other(), self.gen(shape, depth - 1, want_tensor), other()]
            return Node("tree", "tree-ref", kids, ("(tree-ref (list (cons 'w {0}) (cons 'b (list {2} {1}))) 'b 1)", None),
                        shape)
        if self.smooth:
            return self.gen(shape, depth, want_tensor)
        kids = [self.gen(shape, depth - 1, want_tensor), other()]
        bound = rng.choice(["0.5", "2.0", "100.0"])
        return Node("tree", "clip-by-global-norm", kids,
                    ("(car (clip-by-global-norm (list {0} (list (cons 'k {1}))) " + bound + "))", float(bound)),
                    shape)

    def loop(self, shape, depth):
        """A loop whose carry has `shape` (rank >= 1): a fori-loop over a captured
        value and the step index, a scan over a sequence of `shape` slices (the final
        carry plus the sum of the Ys), or a while-loop whose trip count depends on the
        data (its count, a piecewise constant, under stop-gradient: graph-grad refuses
        a while-loop, SPEC §15)."""
        rng = self.rng
        form = rng.choice(["fori-loop", "scan"] if self.smooth else ["fori-loop", "fori-loop", "scan", "scan", "while-loop"])
        steps = rng.choice([0, 1, 2, 3, 5]) if form != "scan" else rng.choice([1, 2, 3, 4])
        init = self.gen(shape, depth - 1, True)
        if form == "scan":
            return Node("loop", form, [init, self.gen((steps,) + shape, depth - 1, True)], (steps,), shape)
        return Node("loop", form, [init, self.gen(shape, depth - 1, True)], (steps,), shape)

    def matmul_vector(self, shape, sa, sb, depth):
        """(reshape (matmul A v) shape): a rank-1 right operand drops its axis."""
        mm = Node("matmul", None, [self.gen(sa, depth - 1, True), self.gen(sb, depth - 1, True)], None, shape[:-1])
        return Node("reshape", None, [mm], list(shape), shape)

    def window(self, shape, depth):
        """conv2d / max-pool2d / avg-pool2d giving a rank-4 `shape`, conv1d a rank-3
        one: random kernel, stride, padding, dilation, and an input that fits."""
        rng = self.rng
        if len(shape) == 2 or (len(shape) == 3 and rng.random() < 0.5):
            # a rank-4 result reshaped: N x C x H x 1, N x C x 1 x W, or 1x1 spatially
            four = shape + (1,) * (4 - len(shape)) if rng.random() < 0.5 else shape[:2] + (1,) + shape[2:]
            four = four + (1,) * (4 - len(four))
            return Node("reshape", None, [self.window(four, depth)], list(shape), shape)
        one = len(shape) == 3
        name = "conv1d" if one else rng.choice(["conv2d", "conv2d", "max-pool2d", "avg-pool2d"])
        conv = name.startswith("conv")
        spatial = shape[2:]
        ks, ss, ps, ds, ins = [], [], [], [], []
        for o in spatial:
            k = rng.choice([1, 2, 2, 3, 3]) if conv else rng.choice([1, 2, 2, 3])
            st = rng.choice([1, 1, 2, 3])
            d = rng.choice([1, 1, 2]) if conv else 1
            pad = rng.choice([0, 0, 1, 2]) if conv else rng.randint(0, k // 2)
            eff = d * (k - 1) + 1
            h = (o - 1) * st + eff - 2 * pad + rng.randint(0, st - 1)
            while h < 1 or (not conv and h + 2 * pad < eff):
                pad -= 1
                h += 2
            ks.append(k), ss.append(st), ps.append(pad), ds.append(d), ins.append(h)

        def arg(vals, default):
            if len(vals) == 1:
                return vals[0]
            if vals[0] == vals[1] and rng.random() < 0.6:
                return vals[0]
            return tuple(vals)
        if conv:
            c = self.dim()
            x_shape = (shape[0], c) + tuple(ins)
            w_shape = (shape[1], c) + tuple(ks)
            opts = [arg(ss, 1), arg(ps, 0), arg(ds, 1)]
            while len(opts) > 0 and opts[-1] == [1, 0, 1][len(opts) - 1] and rng.random() < 0.5:
                opts.pop()
            kids = [self.gen(x_shape, depth - 1, True), self.gen(w_shape, depth - 1, True)]
        else:
            x_shape = shape[:2] + tuple(ins)
            k = arg(ks, None)
            opts = [k, arg(ss, None), arg(ps, 0)]
            if opts[2] == 0 and rng.random() < 0.5:
                opts.pop()
                if opts[1] == k and rng.random() < 0.5:
                    opts.pop()
            kids = [self.gen(x_shape, depth - 1, True)]
        return Node("window", name, kids, opts, shape)

    def pick(self, names):
        return self.rng.choice([n for n in names if not (self.smooth and n in KINKS)])

    def factor(self, total):
        rng = self.rng
        dims = []
        left = total
        rank = rng.choice([1, 2, 3, 4])  # rank 4: convolutions and pooling (SPEC §14) feed reshapes
        for _ in range(rank - 1):
            divs = [d for d in range(1, left + 1) if left % d == 0]
            d = rng.choice(divs)
            dims.append(d)
            left //= d
        dims.append(left)
        rng.shuffle(dims)
        return tuple(dims)


def generate(rng, ident):
    special = rng.random() < 0.3
    g = Gen(rng, special, smooth=rng.random() < SMOOTH_FRACTION)
    tree_seed = rng.randrange(1 << 30)
    if rng.random() < 0.04:
        return generate_big(rng, ident)
    out_shape = g.shape()
    depth = rng.choice([2, 3, 4, 4, 5, 5, 6])
    body = g.gen(out_shape, depth)
    if not g.params:
        body = Node("bin", "tensor-add", [body, g.leaf(out_shape)], None, out_shape)
    n = prod(out_shape)
    w = [rng.choice(W_VALUES) for _ in range(n)]
    return Program(body, g.params, w, out_shape, ident, tree_seed)


def generate_big(rng, ident):
    """A matmul of at least 2^21 multiply-adds: split over KILN_THREADS threads."""
    m, k, n = rng.choice([(129, 128, 128), (136, 130, 120), (64, 256, 130)])
    pa = Param((m, k), rng.randrange(1 << 30), rng.randrange(1 << 30), big=True)
    pb = Param((k, n), rng.randrange(1 << 30), rng.randrange(1 << 30), big=True)
    params = [pa, pb]
    a = Node("param", None, [], 0, (m, k))
    b = Node("param", None, [], 1, (k, n))
    if rng.random() < 0.5:
        a = Node("un", rng.choice(["tensor-tanh", "relu", "tensor-sigmoid"]), [a], None, (m, k))
    mm = Node("matmul", None, [a, b], None, (m, n))
    body = Node("red", "tensor-sum", [Node("un", "tensor-tanh", [mm], None, (m, n))], (0, False), (n,))
    w = [rng.choice(W_VALUES) for _ in range(n)]
    return Program(body, params, w, (n,), ident)


# ---------------------------------------------------------------------------
# Trees, grad with ARGNUMS, second derivatives (docs/graph.md "Trees", "grad",
# "Nesting"; docs/jit.md "jit")
# ---------------------------------------------------------------------------

class TreePlan:
    """How a program's tree variants look. slots: the arguments of FT/FR/LT, each a
    parameter index or a pack (kind, items) whose items are indices or packs. ret: the
    shape of FR's result tree. argnums: for (grad LT ARGNUMS), an int or a list. d2:
    (k, direct, x0, h) for the second derivative of the loss along parameter k, or None."""
    __slots__ = ("slots", "ret", "argnums", "d2")


def tree_plan(prog):
    if prog.big() or not prog.params:
        return None
    rng = random.Random(prog.tree_seed)
    n = len(prog.params)
    pl = TreePlan()
    pl.slots = list(range(n))
    if n >= 2 and rng.random() < 0.85:
        size = rng.choice([2, 3]) if n >= 3 else 2
        start = rng.randint(0, n - size)
        items = list(range(start, start + size))
        kind = rng.choice(["list", "vector", "alist"])
        if size == 3 and rng.random() < 0.4:
            items = [items[0], (rng.choice([x for x in ("list", "vector", "alist") if x != kind]), items[1:])]
        pl.slots[start:start + size] = [(kind, items)]
    pl.ret = rng.randrange(3)
    m = len(pl.slots)
    pl.argnums = rng.randrange(m) if rng.random() < 0.4 else rng.sample(range(m), rng.randint(1, m))
    pl.d2 = None
    if smooth(prog):
        numbers = [k for k, p in enumerate(prog.params) if p.shape is None]
        if numbers:
            k = rng.choice(numbers)
            x0, direct = prog.params[k].b[0], True
        else:
            k, x0, direct = rng.randrange(n), 0.0, False
        h = 2.0 ** -16 * max(1.0, 2.0 ** math.ceil(math.log2(abs(x0)))) if x0 else 2.0 ** -16
        pl.d2 = (k, direct, x0, h)
    return pl


def slot_lisp(slot, prog, which):
    if isinstance(slot, int):
        return prog.params[slot].lisp(which)
    kind, items = slot
    if kind == "alist":  # named parameters (SPEC §14): keys are structure, not leaves
        return f"(list {' '.join(f'(cons (quote k{j}) {slot_lisp(x, prog, which)})' for j, x in enumerate(items))})"
    return f"({kind} {' '.join(slot_lisp(x, prog, which) for x in items)})"


def slot_binds(slot, expr):
    """(name expression) pairs that take a pack apart with car/cadr/caddr/vector-ref."""
    if isinstance(slot, int):
        return [(f"p{slot}", expr)]
    kind, items = slot
    out = []
    for k, item in enumerate(items):
        sub = (f"({['car', 'cadr', 'caddr'][k]} {expr})" if kind == "list"
               else f"(tree-ref {expr} 'k{k})" if kind == "alist"
               else f"(vector-ref {expr} {k})")
        out += slot_binds(item, sub)
    return out


TREE_RESULTS = ["(list y s)", "(vector y (list s y))", "(list (vector y) s '())"]


def parse_tokens(text):
    """Like parse_sexp, but atoms stay text, so values compare bit for bit."""
    return parse_sexp(text, atom=lambda tok: tok)


def unparse(t):
    return "(" + " ".join(unparse(x) for x in t) + ")" if isinstance(t, list) else t


def regroup(slot, grads):
    """graph-grad's flat gradients (cv values) arranged as the argument `slot`."""
    if isinstance(slot, int):
        return grads[slot]
    kind, items = slot
    if kind == "alist":
        return ["L"] + [["K", f"k{j}", regroup(x, grads)] for j, x in enumerate(items)]
    return ["L" if kind == "list" else "V"] + [regroup(x, grads) for x in items]


def first_value(t):
    """The first number or tensor (cv value) of a cv tree."""
    while t[0] in ("L", "V", "K"):
        t = t[2] if t[0] == "K" else t[1]
    return t


# ---------------------------------------------------------------------------
# Lisp batch files
# ---------------------------------------------------------------------------

HARNESS = r"""
(define (cv v)
  (cond ((tensor? v) (list 'T (tensor-shape v) (tensor->list v)))
        ((number? v) (list 'N v))
        ((and (pair? v) (symbol? (car v))) (list 'K (car v) (cv (cdr v))))
        ((pair? v) (cons 'L (map cv v)))
        ((vector? v) (cons 'V (map cv (vector->list v))))
        (else (list 'X (format "~s" v)))))
(define (emsg e) (if (error-object? e) (error-object-message e) (format "~s" e)))
(define (rc id tag thunk)
  (let ((r (try-catch (list 'ok (cv (thunk))) (e) (list 'err (emsg e)))))
    (display id) (display " ") (display tag) (display " ") (write r) (newline) (flush-output-port)
    r))
(define (mark id) (display id) (display " begin") (newline) (flush-output-port))
(define (flat x) (if (pair? x) (apply append (map flat x)) (list x)))
(define (bump v j h)
  (if (number? v) (+ v h)
      (let ((s (tensor-shape v)) (l (list->vector (flat (tensor->list v)))))
        (vector-set! l j (+ (vector-ref l j) h))
        (if (null? s) (tensor (vector-ref l 0)) (reshape (tensor (vector->list l)) s)))))
(define (bump-args args i j h)
  (let loop ((k 0) (a args))
    (if (null? a) '()
        (cons (if (= k i) (bump (car a) j h) (car a)) (loop (+ k 1) (cdr a))))))
(define (scal v) (if (tensor? v) (tensor-item v) v))
(define (fd L args pts)
  (map (lambda (p)
         (list (try-catch (scal (apply graph-eval L (bump-args args (car p) (cadr p) (caddr p)))) (e) 'err)
               (try-catch (scal (apply graph-eval L (bump-args args (car p) (cadr p) (- (caddr p))))) (e) 'err)))
       pts))
(define (compiled K args) (if (error-object? K) (raise K) (apply K args)))
;; Compiling costs far more than running, so the losses of several programs whose
;; graph-grad worked are summed into one function and compiled once.
(define group '())
(define (group-add! id L n A B) (set! group (cons (list id L n A B) group)))
(define (take l n) (if (= n 0) '() (cons (car l) (take (cdr l) (- n 1)))))
(define (drop l n) (if (= n 0) l (drop (cdr l) (- n 1))))
(define (combined members)
  (define (call m args) (apply (cadr m) (take args (caddr m))))
  (lambda args
    (let loop ((ms (cdr members)) (args (drop args (caddr (car members))))
               (acc (call (car members) args)))
      (if (null? ms) acc
          (loop (cdr ms) (drop args (caddr (car ms))) (+ acc (call (car ms) args)))))))
(define (group-check gid members)
  (display gid) (display " begin") (newline)
  (display gid) (display " members ") (write (map car members)) (newline) (flush-output-port)
  (let* ((C (combined members))
         (A (apply append (map (lambda (m) (list-ref m 3)) members)))
         (B (apply append (map (lambda (m) (list-ref m 4)) members)))
         (K (try-catch (apply graph-compile-grad C A) (e) e)))
    (rc gid 'GG (lambda () (apply graph-grad C A)))
    (rc gid 'CG (lambda () (compiled K A)))
    (rc gid 'GG2 (lambda () (apply graph-grad C B)))
    (rc gid 'CG2 (lambda () (compiled K B)))
    (display gid) (display " end") (newline) (flush-output-port)))
(define (group-run gid size)
  (let loop ((ms (reverse group)) (gid gid))
    (when (pair? ms)
      (let ((n (min size (length ms))))
        (group-check gid (take ms n))
        (loop (drop ms n) (+ gid 1)))))
  (set! group '()))
;; jit: the tree-returning variants of several programs, each called with its own
;; list of (tree) arguments, as one jitted procedure: one kernel for the group.
(define jgroup '())
(define (jgroup-add! id F A B) (set! jgroup (cons (list id F A B) jgroup)))
(define (jit-check id J A B)
  (rc id 'JT (lambda () (apply J A)))
  (rc id 'JTb (lambda () (apply J A)))
  (rc id 'JT2 (lambda () (apply J B)))
  (rc id 'NK (lambda () (length (jit-kernels J)))))
(define (jgroup-check gid members)
  (display gid) (display " begin") (newline)
  (display gid) (display " members ") (write (map car members)) (newline) (flush-output-port)
  (let ((C (lambda args (map (lambda (m a) (apply (cadr m) a)) members args)))
        (A (map caddr members))
        (B (map (lambda (m) (list-ref m 3)) members)))
    (rc gid 'GT (lambda () (apply graph-eval C A)))
    (rc gid 'GT2 (lambda () (apply graph-eval C B)))
    (jit-check gid (jit C) A B))
  (display gid) (display " end") (newline) (flush-output-port))
(define (jgroup-run gid size)
  (let loop ((ms (reverse jgroup)) (gid gid))
    (when (pair? ms)
      (let ((n (min size (length ms))))
        (jgroup-check gid (take ms n))
        (loop (drop ms n) (+ gid 1)))))
  (set! jgroup '()))
(define (subst l k v) (if (= k 0) (cons v (cdr l)) (cons (car l) (subst (cdr l) (- k 1) v))))
;; g'' at x nested (grad of a grad), and g' at x, x+h, x-h for finite differences
(define (d2 g x h)
  (list ((grad (lambda (x) (cadr ((grad g) x)))) x)
        (cadr ((grad g) x)) (cadr ((grad g) (+ x h))) (cadr ((grad g) (- x h)))))
"""
GROUP_BASE = 10 ** 9
GROUP_SIZE = 10
JIT_GROUP_OFFSET = 50  # gid % 100 at or past this: a jit group
JIT_GROUP_SIZE = 10


def fd_points(prog, rng, which):
    """Up to 8 (param, element, step) triples for finite differences."""
    pts = []
    for i, p in enumerate(prog.params):
        if p.big:
            return []
        vals = p.a if which == "a" else p.b
        for j, x in enumerate(vals):
            if math.isfinite(x):
                pts.append((i, j, 2.0 ** -20 * max(1.0, 2.0 ** math.ceil(math.log2(abs(x)))) if x else 2.0 ** -20))
    rng.shuffle(pts)
    return sorted(pts[:8])


def program_lisp(prog, fd_a=None, fd_b=None, tags=None):
    """The definitions and checks of one program; `tags` limits which calls run."""
    i = prog.ident
    ps = " ".join(f"p{k}" for k in range(len(prog.params)))
    out = [f"(mark {i})",
           f"(define (f{i} {ps}) {to_lisp(prog.body)})"]
    if prog.w_shape:
        out.append(f"(define W{i} {tensor_literal(prog.w, prog.w_shape)})")
        out.append(f"(define (L{i} {ps}) (tensor-sum (tensor-mul (f{i} {ps}) W{i})))")
    else:
        out.append(f"(define W{i} {fmt_float(prog.w[0])})")
        out.append(f"(define (L{i} {ps}) (* (f{i} {ps}) W{i}))")
    out.append(f"(define A{i} (list {' '.join(p.lisp('a') for p in prog.params)}))")
    out.append(f"(define B{i} (list {' '.join(p.lisp('b') for p in prog.params)}))")

    def want(t):
        return tags is None or t in tags
    calls = [("E", f"(apply f{i} A{i})"), ("E2", f"(apply f{i} B{i})"),
             ("G", f"(apply graph-eval f{i} A{i})"), ("G2", f"(apply graph-eval f{i} B{i})"),
             ("EL", f"(apply L{i} A{i})"), ("GL", f"(apply graph-eval L{i} A{i})"),
             ("GG", f"(apply graph-grad L{i} A{i})"), ("GG2", f"(apply graph-grad L{i} B{i})")]
    for tag, expr in calls:
        if not want(tag):
            continue
        if tag == "GG" and tags is None and not prog.compile_own:
            out.append(f"(when (eq? 'ok (car (rc {i} 'GG (lambda () {expr})))) "
                       f"(group-add! {i} L{i} {len(prog.params)} A{i} B{i}))")
        else:
            out.append(f"(rc {i} '{tag} (lambda () {expr}))")
    # A kernel of its own for the forward (CF) and the gradient (CG), each applied to A and B.
    for tag, wanted_here, compiler, fn in (("CF", prog.compile_fwd, "graph-compile", f"f{i}"),
                                           ("CG", prog.compile_own, "graph-compile-grad", f"L{i}")):
        if (tags is None and not wanted_here) or not (want(tag) or want(tag + "2")):
            continue
        k = f"K{tag[1]}{i}"
        out.append(f"(define {k} (try-catch (apply {compiler} {fn} A{i}) (e) e))")
        out.append(f"(rc {i} '{tag} (lambda () (compiled {k} A{i})))")
        out.append(f"(rc {i} '{tag}2 (lambda () (compiled {k} B{i})))")
    pl = tree_plan(prog)
    if pl is not None:
        out += tree_lisp(prog, pl, want, group=tags is None and not prog.jit_own)
    for tag, pts, args in (("FD", fd_a, f"A{i}"), ("FD2", fd_b, f"B{i}")):
        if pts and want(tag):
            lst = " ".join(f"({a} {b} {fmt_float(h)})" for a, b, h in pts)
            out.append(f"(rc {i} '{tag} (lambda () (fd L{i} {args} '({lst}))))")
    out.append(f"(display {i}) (display \" end\") (newline)")
    return "\n".join(out) + "\n"


def tree_lisp(prog, pl, want, group):
    """FT (F with some parameters packed into a list or vector and taken apart), FR
    (FT returning a tree of F's value and the loss), LT (the loss of FT) and their checks."""
    i = prog.ident
    ps = " ".join(f"p{k}" for k in range(len(prog.params)))
    targs = " ".join(f"p{s}" if isinstance(s, int) else f"t{j}" for j, s in enumerate(pl.slots))
    binds = " ".join(f"({name} {expr})" for j, s in enumerate(pl.slots) if not isinstance(s, int)
                     for name, expr in slot_binds(s, f"t{j}"))
    loss = f"(tensor-sum (tensor-mul y W{i}))" if prog.w_shape else f"(* y W{i})"
    out = [f"(define (FR{i} {targs}) (let* ({binds} (y (f{i} {ps})) (s {loss})) {TREE_RESULTS[pl.ret]}))",
           f"(define (LT{i} {targs}) (let* ({binds}) (L{i} {ps})))",
           f"(define At{i} (list {' '.join(slot_lisp(s, prog, 'a') for s in pl.slots)}))",
           f"(define Bt{i} (list {' '.join(slot_lisp(s, prog, 'b') for s in pl.slots)}))"]
    argnums = pl.argnums if isinstance(pl.argnums, int) else f"'({' '.join(map(str, pl.argnums))})"
    calls = [("ET", f"(apply FR{i} At{i})"), ("ET2", f"(apply FR{i} Bt{i})"),
             ("GT", f"(apply graph-eval FR{i} At{i})"), ("GT2", f"(apply graph-eval FR{i} Bt{i})"),
             ("GGT", f"(apply graph-grad LT{i} At{i})"),
             ("GA", f"(apply (grad LT{i} {argnums}) At{i})"),
             ("GA2", f"(apply (grad LT{i} {argnums}) Bt{i})")]
    for tag, expr in calls:
        if want(tag):
            out.append(f"(define r{tag}{i} (rc {i} '{tag} (lambda () {expr})))")
    if group and want("GT") and want("GT2"):
        out.append(f"(when (and (eq? 'ok (car rGT{i})) (eq? 'ok (car rGT2{i}))) "
                   f"(jgroup-add! {i} FR{i} At{i} Bt{i}))")
    if prog.jit_own and want("JT"):
        out.append(f"(jit-check {i} (jit FR{i}) At{i} Bt{i})")
    if pl.d2 is not None and want("D2"):
        k, direct, x0, h = pl.d2
        x = "x" if direct else f"(+ (list-ref B{i} {k}) x)"
        out.append(f"(define (g{i} x) (apply L{i} (subst B{i} {k} {x})))")
        out.append(f"(rc {i} 'D2 (lambda () (d2 g{i} {fmt_float(x0)} {fmt_float(h)})))")
    return out


# ---------------------------------------------------------------------------
# Running kiln
# ---------------------------------------------------------------------------

class Runner:
    def __init__(self, kiln, scratch, timeout):
        self.kiln = kiln
        self.scratch = scratch
        self.timeout = timeout
        self.env = dict(os.environ)
        self.env["KILN_CACHE_DIR"] = str(scratch / "kernel-cache")
        self.env.pop("KILN_GC_STRESS", None)
        # Every recurring kernel unit becomes a shared function, however small:
        # the fuzzer's graphs are too small for the default threshold.
        self.env["KILN_JIT_SHARE"] = "all"
        self.runs = 0
        self.counter = 0
        self.history = []  # (threads, text) of the batch files since the last clear

    def run_text(self, text, threads=2):
        """Runs one batch file; returns (stdout text, returncode or -signal, stderr, timed_out)."""
        self.counter += 1
        path = self.scratch / f"batch{self.counter}.lisp"
        path.write_text(text)
        self.history.append((threads, text))
        env = dict(self.env)
        env["KILN_THREADS"] = str(threads)
        self.runs += 1
        proc = subprocess.Popen([self.kiln, str(path)], cwd=self.scratch, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        timed_out = False
        try:
            out, err = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        path.unlink()
        return out.decode(errors="replace"), proc.returncode, err.decode(errors="replace"), timed_out

    def run_programs(self, progs, fd, threads=2, tags=None):
        """Results {ident: {tag: text}} plus {ident: crash description} for programs
        whose process died while running them (the rest are run again)."""
        results = {}
        crashes = {}
        todo = list(progs)
        while todo:
            text = HARNESS + "".join(program_lisp(p, *fd.get(p.ident, (None, None)), tags=tags)
                                     for p in todo)
            if tags is None:
                text += f"(group-run {GROUP_BASE + todo[0].ident * 100} {GROUP_SIZE})\n"
                text += (f"(jgroup-run {GROUP_BASE + todo[0].ident * 100 + JIT_GROUP_OFFSET} "
                         f"{JIT_GROUP_SIZE})\n")
            out, rc, err, timed_out = self.run_text(text, threads)
            begun = None
            done = set()
            for line in out.splitlines():
                parts = line.split(" ", 2)
                if len(parts) < 2 or not parts[0].isdigit():
                    continue
                ident = int(parts[0])
                if parts[1] == "begin":
                    begun = ident
                elif parts[1] == "end":
                    done.add(ident)
                elif len(parts) == 3:
                    results.setdefault(ident, {})[parts[1]] = parts[2]
            if rc == 0 and not timed_out:
                break
            how = "timeout" if timed_out else (f"signal {-rc}" if rc < 0 else f"exit status {rc}")
            desc = f"{how}: " + "\n".join(err.strip().splitlines()[-6:])
            pending = [p for p in todo if p.ident not in done]
            if begun is None or begun in done:
                # died outside any program (or at exit): blame the next one, or the last
                begun = pending[0].ident if pending else todo[-1].ident
            crashes[begun] = desc
            if begun >= GROUP_BASE:
                break  # the groups come after every program
            idx = [p.ident for p in todo].index(begun)
            todo = [p for p in todo[idx + 1:] if p.ident not in done]
        return results, crashes


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------

def normalise(text, strict):
    if text is None:
        return None
    return text.replace("-nan.0", "+nan.0")  # NaN sign bits are not compared


def is_err(text):
    return text is not None and text.startswith("(err")


# Eager comparisons take numbers; a traced `if` records a select of a tensor comparison.
EAGER_COMPARISON_ERROR = re.compile(r"^\(err \"(<|<=|>|>=|=): argument \d+ must be a (real )?number")


# Eager sqrt, log and expt of a negative number give a complex number (SPEC §4); a
# traced number is a real double, so there they give NaN (docs/graph.md).
EAGER_COMPLEX = re.compile(r"[0-9.][-+](?:[0-9.]+(?:e[-+]?[0-9]+)?|inf\.0|nan\.0)?i\b")


RANK0 = re.compile(r"\(T \(\) ([^()\s]+)\)")


def has_if(prog):
    return any(n.kind == "select" for n in prog.body.walk())


def parse_sexp(text, atom=None):
    """A tiny reader for what `write` prints of cv values: lists, symbols, numbers, strings."""
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|[()]|[^\s()]+', text)
    pos = 0

    def number_atom(tok):
        if tok.startswith('"'):
            return tok
        t = tok.replace(".0", "") if tok in ("+nan.0", "-nan.0", "+inf.0", "-inf.0") else tok
        if t in ("+nan", "-nan"):
            return math.nan
        if t == "+inf":
            return math.inf
        if t == "-inf":
            return -math.inf
        try:
            return float(tok) if re.match(r"^[-+]?(\d|\.\d)", tok) else tok
        except ValueError:
            return tok

    def read():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            items = []
            while tokens[pos] != ")":
                items.append(read())
            pos += 1
            return items
        return (atom or number_atom)(tok)
    return read()


def flatten_value(v):
    """cv value -> flat list of floats."""
    if v[0] == "N":
        return [v[1]]
    if v[0] == "T":
        out = []

        def rec(x):
            if isinstance(x, list):
                for y in x:
                    rec(y)
            else:
                out.append(x)
        rec(v[2])
        return out
    raise ValueError(v)


def grads_of(text):
    """graph-grad result text -> (loss, [flat gradient per parameter])."""
    v = parse_sexp(text)
    assert v[0] == "ok"
    lst = v[1]
    assert lst[0] == "L"
    loss = flatten_value(lst[1])[0]
    return loss, [flatten_value(g) for g in lst[2:]]


def uses_known_grad_ops(prog):
    return any(n.name in ("tensor-pow", "expt", "tensor-maximum", "max", "min") for n in prog.body.walk())


def check_fd(prog, res, tag, gtag, pts, which, strict, reference):
    text = res.get(tag)
    gg = res.get(gtag)
    if not pts or text is None or gg is None or is_err(gg) or is_err(text):
        return None, 0
    try:
        loss, grads = grads_of(gg)
        fdv = [[v[1] if v[0] == "N" else None for v in item[1:]] for item in parse_sexp(text)[1][1:]]
    except (AssertionError, IndexError, ValueError, TypeError):
        return None, 0
    if not math.isfinite(loss):
        return None, 0
    checked = 0
    for (i, j, h), pair in zip(pts, fdv):
        if len(pair) != 2:
            continue
        lp, lm = pair
        if not isinstance(lp, float) or not isinstance(lm, float):
            continue
        if not (math.isfinite(lp) and math.isfinite(lm)):
            continue
        x = (prog.params[i].a if which == "a" else prog.params[i].b)[j]
        hp = (x + h) - x
        hm = x - (x - h)
        fwd = (lp - loss) / hp
        bwd = (loss - lm) / hm
        central = (lp - lm) / (hp + hm)
        g = grads[i][j] if j < len(grads[i]) else math.nan
        if abs(fwd - bwd) > 1e-4 * max(1.0, abs(fwd), abs(bwd)):
            continue  # a kink, a tie or a select boundary near x
        if not math.isfinite(g):
            # A NaN that flows as 0 * inf from a branch a select did not take, or
            # from elements a slice dropped, is PyTorch's answer too (torch.where):
            # only a finite PyTorch gradient makes a non-finite one a failure.
            ref = reference(which)
            if ref is None or ref is AT_A_TIE or not math.isfinite(ref[i][j]):
                continue
            if uses_known_grad_ops(prog) and not strict:
                continue
            return (f"{tag}: d/d p{i}[{j}] is {g} but f is smooth there (central difference {central!r}, "
                    f"PyTorch {ref[i][j]!r})"), checked
        checked += 1
        tol = 1e-5 * max(1.0, abs(g), abs(central)) + 1e-7 * max(1.0, abs(loss))
        if abs(g - central) > tol:
            # Finite differences cannot see through cancellation (1 + tanh(z) at
            # z = -15 is 8e-14, flat to every step): PyTorch agreeing settles it.
            ref = reference(which)
            # At a tie of maximum/minimum/max Kiln's gradient is its documented
            # subgradient, and finite differences may be flat on both sides (a select
            # boundary feeding the tie: seed 26508, program 54).
            if ref is AT_A_TIE:
                continue
            if ref is not None and abs(ref[i][j] - g) <= 1e-9 * max(1.0, abs(g)):
                continue
            return (f"{tag}: d/d p{i}[{j}] at {x!r}: graph-grad {g!r}, central difference "
                    f"{central!r} (one-sided {fwd!r}, {bwd!r})"), checked
    return None, checked


def check_program(prog, res, strict, stats=None):
    """A list of (kind, detail) failures of one program's results."""
    fails = []

    def get(tag):
        return normalise(res.get(tag), strict)

    def agree(t1, t2, kind, eager=False):
        a, b = get(t1), get(t2)
        if a is None or b is None:
            return
        if is_err(a) and is_err(b):
            return
        if eager and not strict and EAGER_COMPLEX.search(a):
            return
        if is_err(a) != is_err(b):
            if eager and not strict and is_err(a) and EAGER_COMPARISON_ERROR.search(a):
                return
            # Both branches of a traced `if` run: an error in the one eager skips.
            if eager and not strict and is_err(b) and has_if(prog):
                return
            fails.append((kind, f"{t1} {a[:300]}\n  {t2} {b[:300]}"))
            return
        if a != b:
            # A traced `if` selects between its branches broadcast together, so a
            # number branch comes out as a rank-0 tensor when the other is one.
            if eager and not strict and has_if(prog) and RANK0.sub(r"(N \1)", a) == RANK0.sub(r"(N \1)", b):
                return
            fails.append((kind, f"{t1} {a[:300]}\n  {t2} {b[:300]}"))

    agree("E", "G", "eager-vs-graph-eval", eager=True)
    agree("E2", "G2", "eager-vs-graph-eval", eager=True)
    agree("EL", "GL", "eager-vs-graph-eval-loss", eager=True)
    # graph-eval L vs graph-grad's loss
    gl, gg = get("GL"), get("GG")
    if gl is not None and gg is not None:
        if is_err(gl) != is_err(gg):
            fails.append(("graph-eval-vs-graph-grad-loss", f"GL {gl[:300]}\n  GG {gg[:300]}"))
        elif not is_err(gl):
            want = gl[len("(ok "):-1]
            if want.startswith("(T () "):  # graph-grad's loss is a number (docs/graph.md)
                want = "(N " + want[len("(T () "):]
            if not gg[len("(ok (L "):].startswith(want):
                fails.append(("graph-eval-vs-graph-grad-loss", f"GL {gl[:300]}\n  GG {gg[:300]}"))
    agree("G", "CF", "graph-compile-vs-graph-eval")
    agree("G2", "CF2", "graph-compile-vs-graph-eval")
    agree("GG", "CG", "graph-compile-grad-vs-graph-grad")
    agree("GG2", "CG2", "graph-compile-grad-vs-graph-grad")
    check_trees(prog, get, agree, fails, stats if stats is not None else {})
    return fails


JIT_KINDS = ("jit-vs-graph-eval", "jit-kernel-count")
ONE_KERNEL = "(ok (N 1))"


def check_trees(prog, get, agree, fails, stats):
    pl = tree_plan(prog)
    if pl is None:
        return
    gt = get("GT")
    stats["tree_checked"] = stats.get("tree_checked", 0) + (gt is not None and not is_err(gt))
    agree("ET", "GT", "tree-eager-vs-graph-eval", eager=True)
    agree("ET2", "GT2", "tree-eager-vs-graph-eval", eager=True)
    # FR's first leaf is F's value, with the parameters packed
    for t, g in (("GT", "G"), ("GT2", "G2")):
        a, b = get(t), get(g)
        if a is None or b is None or is_err(a) or is_err(b):
            if a is not None and b is not None and is_err(a) != is_err(b):
                fails.append(("tree-args-vs-flat", f"{t} {a[:300]}\n  {g} {b[:300]}"))
            continue
        y = unparse(first_value(parse_tokens(a)[1]))
        if "(ok " + y + ")" != b:
            fails.append(("tree-args-vs-flat", f"{t} {a[:300]}\n  {g} {b[:300]}"))
    # graph-grad and grad with ARGNUMS on packed arguments: graph-grad's flat
    # gradients, arranged like the arguments
    argnums = [pl.argnums] if isinstance(pl.argnums, int) else pl.argnums
    for t, g, picks, kind in (("GGT", "GG", range(len(pl.slots)), "graph-grad-tree-vs-flat"),
                              ("GA", "GG", argnums, "grad-argnums-vs-graph-grad"),
                              ("GA2", "GG2", argnums, "grad-argnums-vs-graph-grad")):
        a, b = get(t), get(g)
        if a is None or b is None or (is_err(a) and is_err(b)):
            continue
        if is_err(a) != is_err(b):
            fails.append((kind, f"{t} {a[:300]}\n  {g} {b[:300]}"))
            continue
        flat = parse_tokens(b)[1]
        want = unparse(["ok", ["L", flat[1]] + [regroup(pl.slots[k], flat[2:]) for k in picks]])
        if a != want:
            fails.append((kind, f"{t} {a[:300]}\n  want {want[:300]}\n  {g} {b[:300]}"))
    if prog.jit_own:
        check_jit(get, "GT", "GT2", fails)
    msg, done = check_d2(pl, get("D2"), get("GG2"))
    stats["d2_checked"] = stats.get("d2_checked", 0) + done
    if msg:
        fails.append(("second-derivative", msg))


def check_jit(get, gt, gt2, fails):
    """(jit FR) applied to A twice and to B (one signature): graph-eval's bits, one kernel."""
    for t, g in (("JT", gt), ("JTb", gt), ("JT2", gt2)):
        a, b = get(t), get(g)
        if a is None or b is None or (is_err(a) and is_err(b)):
            continue
        if a != b:
            fails.append(("jit-vs-graph-eval", f"{t} {a[:300]}\n  {g} {b[:300]}"))
            return
    nk, jt = get("NK"), get("JT")
    if nk is not None and jt is not None and not is_err(jt) and nk != ONE_KERNEL:
        fails.append(("jit-kernel-count", f"(length (jit-kernels J)) after 3 calls of one signature: {nk}"))


def check_d2(pl, text, gg2):
    """((grad (lambda (x) (cadr ((grad g) x)))) x0) against central differences of g'."""
    if pl.d2 is None or text is None:
        return None, False
    if is_err(text):
        # g's other parameters are constants there, so an expression of them alone
        # runs eagerly and may give a complex number (SPEC §4) where graph-grad's
        # traced one gives NaN: by design (docs/graph.md; seed 43008, program 116).
        if gg2 is not None and not is_err(gg2) and not EAGER_COMPLEX.search(text):
            return f"D2 {text[:300]} but GG2 works: {gg2[:200]}", False
        return None, False
    k, direct, x0, h = pl.d2
    try:
        v = parse_sexp(text)[1]
        g1n, g2n = [flatten_value(u)[0] for u in v[1][1:]]
        g1, g1p, g1m = [flatten_value(u)[0] for u in v[2:]]
    except (IndexError, ValueError, TypeError):
        return None, False
    vals = [g1n, g2n, g1, g1p, g1m]
    if not all(isinstance(u, float) and math.isfinite(u) for u in vals):
        return None, False
    where = f"p{k}" + ("" if direct else " + x (every element)")
    if g1n != g1:
        return (f"D2: the nested first derivative along {where} at {x0!r} is {g1n!r}, "
                f"graph-grad's {g1!r}"), True
    hp, hm = (x0 + h) - x0, x0 - (x0 - h)
    fwd, bwd = (g1p - g1) / hp, (g1 - g1m) / hm
    if abs(fwd - bwd) > 1e-3 * max(1.0, abs(fwd), abs(bwd)):
        return None, False  # g' is not smooth enough at this step (near a pole, or a large g''')
    central = (g1p - g1m) / (hp + hm)
    # The loss's own size bounds the rounding in g' (as in check_fd): a g' that
    # is rounding noise of a huge loss (0.125 on 7.9e13, where the loss is flat
    # in x: softmax of p0 + x; seed 4116, program 100) has no second derivative
    # finite differences could check.
    try:
        loss = abs(grads_of(gg2)[0]) if gg2 is not None and not is_err(gg2) else 0.0
    except (AssertionError, IndexError, ValueError, TypeError):
        loss = 0.0
    if not math.isfinite(loss):
        loss = 0.0  # g' is finite all the same (checked above)
    tol = 1e-4 * max(1.0, abs(g2n), abs(central)) + 1e-6 * max(1.0, abs(g1)) + 1e-11 * max(1.0, loss)
    if abs(g2n - central) > tol:
        return (f"D2: second derivative along {where} at {x0!r}: nested grad {g2n!r}, central "
                f"difference of graph-grad's first derivative {central!r} (one-sided {fwd!r}, {bwd!r})"), True
    return None, True


# ---------------------------------------------------------------------------
# PyTorch reference (optional)
# ---------------------------------------------------------------------------

def torch_module():
    try:
        import torch  # noqa: F401
        torch.set_default_dtype(torch.float64)
        return torch
    except Exception:  # absent or broken: the check is skipped
        return None


def reexec_for_torch():
    """Debian's python3-torch is importable only by /usr/bin/python3; when this is
    another Python (pyenv, a venv) without torch, run again under that one."""
    system = "/usr/bin/python3"
    if os.environ.get("KILN_DIFF_FUZZ_REEXEC") or not os.path.exists(system):
        return
    if os.path.realpath(sys.executable) == os.path.realpath(system):
        return
    try:
        ok = subprocess.run([system, "-c", "import torch"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return
    if ok:
        os.environ["KILN_DIFF_FUZZ_REEXEC"] = "1"
        os.execv(system, [system] + sys.argv)


class TorchSkip(Exception):
    pass


def near_tie(torch, a, b):
    """Operands equal to within rounding: PyTorch's exp, log, tanh ... may differ
    from glibc's (which every Kiln path uses) in the last bit, so a comparison or
    a maximum this close may decide the other way in PyTorch: log(exp(p)) < p
    was true in PyTorch and false in Kiln for p = -0.3692496381465453."""
    a, b = torch.broadcast_tensors(torch.as_tensor(a), torch.as_tensor(b))
    return bool(torch.isclose(a, b, rtol=1e-13, atol=0.0).any())


def torch_eval(torch, n, leaves):
    """Evaluates node n with torch; raises TorchSkip where Kiln's documented rule
    differs (ties of maximum/minimum/max, NaN operands there, pow base 0)."""
    k = n.kind
    T = torch
    if k == "param":
        return leaves[n.extra]
    if k == "const":
        return T.tensor(n.extra)
    if k == "ctensor":
        return T.tensor(n.extra).reshape(n.shape)
    args = [torch_eval(T, c, leaves) for c in n.kids]
    if k == "un":
        x = args[0]
        name = n.name
        table = {"tensor-neg": T.neg, "tensor-exp": T.exp, "tensor-log": T.log, "tensor-sqrt": T.sqrt,
                 "tensor-tanh": T.tanh, "tensor-sigmoid": T.sigmoid, "relu": T.relu, "tensor-abs": T.abs,
                 "abs": T.abs, "sqrt": T.sqrt, "exp": T.exp, "log": T.log, "sin": T.sin, "cos": T.cos,
                 "tan": T.tan, "square": lambda v: v * v, "1+": lambda v: v + 1.0,
                 "1-": lambda v: v - 1.0, "-": T.neg, "/": lambda v: 1.0 / v,
                 "tensor-gelu": lambda v: T.nn.functional.gelu(v, approximate="tanh")}
        if name == "dropout":
            raise TorchSkip("dropout's mask comes from Kiln's own generator")
        return table[name](x)
    if k == "bin":
        name = n.name
        acc = args[0]
        for b in args[1:]:
            if name in ("tensor-add", "+"):
                acc = acc + b
            elif name in ("tensor-sub", "-"):
                acc = acc - b
            elif name in ("tensor-mul", "*"):
                acc = acc * b
            elif name in ("tensor-div", "/"):
                acc = acc / b
            elif name in ("tensor-pow", "expt"):
                if bool((acc == 0).any()):
                    raise TorchSkip("pow base 0")
                acc = T.pow(acc, b)
            elif name in TENSOR_COMPARE:
                if near_tie(T, acc, b):
                    raise TorchSkip("tie in a comparison")
                acc = getattr(T, TENSOR_COMPARE[name])(acc, b).double()
            elif name in ("tensor-maximum", "max", "min"):
                if near_tie(T, acc, b) or bool(acc.isnan().any()) or bool(b.isnan().any()):
                    raise TorchSkip("tie or NaN in maximum/minimum")
                acc = T.maximum(acc, b) if name != "min" else T.minimum(acc, b)
        return acc
    if k == "red":
        x = args[0]
        axis, keep = n.extra
        if n.name == "tensor-max":
            m = x.amax() if axis is None else x.amax(dim=axis, keepdim=True)
            near = T.isclose(x, m, rtol=1e-13, atol=0.0)
            if bool(near.sum() > (1 if axis is None else m.numel())) or bool(x.isnan().any()):
                raise TorchSkip("tie in max")
            return x.amax() if axis is None else x.amax(dim=axis, keepdim=keep)
        if n.name == "tensor-min":
            m = x.amin() if axis is None else x.amin(dim=axis, keepdim=True)
            near = T.isclose(x, m, rtol=1e-13, atol=0.0)
            if bool(near.sum() > (1 if axis is None else m.numel())) or bool(x.isnan().any()):
                raise TorchSkip("tie in min")
            return x.amin() if axis is None else x.amin(dim=axis, keepdim=keep)
        if n.name == "tensor-var":
            return T.var(x, unbiased=False) if axis is None else T.var(x, dim=axis, unbiased=False, keepdim=keep)
        f = T.sum if n.name == "tensor-sum" else T.mean
        return f(x) if axis is None else f(x, dim=axis, keepdim=keep)
    if k == "matmul":
        return T.matmul(args[0], args[1])
    if k == "window":
        F = T.nn.functional
        if n.name.startswith("conv"):
            names = ["stride", "padding", "dilation"]
            kw = {names[i]: v for i, v in enumerate(n.extra)}
            return (F.conv1d if n.name == "conv1d" else F.conv2d)(args[0], args[1], **kw)
        x = args[0]
        kernel = n.extra[0]
        stride = n.extra[1] if len(n.extra) > 1 else kernel
        pad = n.extra[2] if len(n.extra) > 2 else 0
        if n.name == "max-pool2d":
            if bool(x.isnan().any()):
                raise TorchSkip("NaN in max-pool2d")
            if pool_has_tie(T, x.detach(), kernel, stride, pad):
                raise TorchSkip("tie in max-pool2d")
            return F.max_pool2d(x, kernel, stride, pad)
        return F.avg_pool2d(x, kernel, stride, pad)
    if k == "transpose":
        return args[0].t() if n.extra is None else args[0].permute(*n.extra)
    if k == "reshape":
        return args[0].reshape(n.extra)
    if k == "slice":
        axis, start, end = n.extra
        return args[0].narrow(axis, start, end - start)
    if k == "concat":
        return T.cat(args, 0 if n.extra is None else n.extra)
    if k == "select":
        ncmp = n.extra
        ops = {"<": T.lt, "<=": T.le, ">": T.gt, ">=": T.ge, "=": T.eq}
        mask = None
        for a, b in zip(args[:ncmp], args[1:ncmp]):
            if near_tie(T, a, b):
                raise TorchSkip("select boundary within rounding")
            m = ops[n.name](a, b)
            mask = m if mask is None else mask & m
        return T.where(mask, args[ncmp], args[ncmp + 1])
    if k == "axisop":
        dim = -1 if n.extra is None else n.extra
        return T.softmax(args[0], dim) if n.name == "softmax" else T.log_softmax(args[0], dim)
    if k == "argmax":
        if bool(args[0].isnan().any()):
            raise TorchSkip("NaN in argmax")
        dim = -1 if n.extra is None else n.extra
        return T.argmax(args[0].detach(), dim).to(T.float64)
    if k == "take":
        axis, idx, _ = n.extra
        return T.index_select(args[0], axis, T.tensor(idx))
    if k == "where":
        c, a, b = args
        return T.where(c != 0, a, b)
    if k == "clip":
        if bool(args[0].isnan().any()):
            raise TorchSkip("NaN in clip")  # Kiln's maximum/minimum pass its gradient on
        lo, hi = n.extra
        return T.clamp(args[0], lo, hi)
    if k == "rand":
        raise TorchSkip("tensor-rand's numbers come from Kiln's own generator")
    if k == "lib":
        if n.name == "layer-norm":
            x, g, b = args
            eps = 1e-5 if n.extra is None else float(n.extra)
            dev = x - x.mean(-1, keepdim=True)
            var = (dev * dev).mean(-1, keepdim=True)
            return dev / T.sqrt(var + eps) * g + b
        if n.name == "linear":
            y = T.matmul(args[0], args[1])
            return y if len(args) == 2 else y + args[2]
        q, kk, v = args[:3]
        scores = T.matmul(q, kk.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        if len(args) == 4:
            scores = scores + args[3]
        elif n.extra is not None:
            t = q.shape[-2]
            scores = scores + T.triu(T.full((t, t), -math.inf, dtype=T.float64), 1)
        return T.matmul(T.softmax(scores, -1), v)
    if k == "tree":
        if n.name == "global-norm":
            return T.sqrt(0.0 + (args[0] * args[0]).sum() + (args[1] * args[1]).sum())
        if n.name == "tree-reduce":
            return 0.0 + args[0].mean() + args[1].mean()
        if n.name == "tree-ref":
            return args[1]
        bound = n.extra[1]
        norm = T.sqrt(0.0 + (args[0] * args[0]).sum() + (args[1] * args[1]).sum())
        if near_tie(T, norm, bound) or bool(norm.isnan().any()):
            raise TorchSkip("global norm at the clipping bound")
        return args[0] * (bound / T.maximum(norm, T.tensor(bound)))
    if k == "loop":
        c, other = args
        (steps,) = n.extra
        if n.name == "fori-loop":
            for i in range(steps):
                c = T.tanh(c * 0.5 + other * (1.0 + i))
            return c
        if n.name == "scan":
            total = None
            for t in range(steps):
                c = T.tanh(c * 0.5 + other[t])
                total = c * other[t] if total is None else total + c * other[t]
            return c + total
        count = 0.0
        while True:
            m = count + c.mean()
            if near_tie(T, m, float(steps)):
                raise TorchSkip("a while-loop's test at its bound")
            if not bool(m < steps):
                break
            c = T.tanh(c * 0.5 + other)
            count += 1.0
        return other * count
    if k == "loss":
        if n.name == "cross-entropy":
            return T.nn.functional.cross_entropy(args[0], T.tensor(n.extra))
        a, b = args
        return T.nn.functional.mse_loss(a, b)
    raise ValueError(k)


def pool_has_tie(T, x, kernel, stride, pad):
    """Whether a max-pool2d window holds two entries within rounding of its maximum
    (Kiln passes the gradient to the first of them; torch may pick another)."""
    F = T.nn.functional
    pair = lambda v: v if isinstance(v, tuple) else (v, v)
    cols = F.unfold(F.pad(x, (pair(pad)[1],) * 2 + (pair(pad)[0],) * 2, value=-math.inf), pair(kernel),
                    stride=pair(stride))
    cols = cols.reshape(x.shape[0], x.shape[1], -1, cols.shape[-1])
    m = cols.amax(dim=2, keepdim=True)
    return bool((T.isclose(cols, m, rtol=1e-13, atol=0.0).sum(dim=2) > 1).any())


# torch_grads' answer when the forward meets a TorchSkip rule (a tie or NaN operand
# of maximum/minimum/max, a zero base of pow), if asked to tell that apart from None.
AT_A_TIE = "at a tie"


def torch_grads(torch, prog, which, tell_ties=False):
    """PyTorch's gradients of L on input set `which` ('a' or 'b'), one flat list per
    parameter, or None (no torch, a finite loss not reached, or a TorchSkip rule:
    AT_A_TIE with tell_ties)."""
    if torch is None or prog.big():
        return None
    leaves = []
    for p in prog.params:
        vals = p.a if which == "a" else p.b
        t = torch.tensor(vals[0] if p.shape is None else vals)
        if p.shape is not None:
            t = t.reshape(p.shape)
        leaves.append(t.clone().requires_grad_(True))
    try:
        out = torch_eval(torch, prog.body, leaves)
        w = torch.tensor(prog.w).reshape(prog.w_shape) if prog.w_shape else torch.tensor(prog.w[0])
        loss = (out * w).sum()
        if not bool(torch.isfinite(loss)):
            return None
        grads = torch.autograd.grad(loss, leaves, allow_unused=True)
    except TorchSkip:
        return AT_A_TIE if tell_ties else None
    except RuntimeError:
        return None
    return [[0.0] * prod(p.shape or ()) if g is None else [float(v) for v in g.reshape(-1).tolist()]
            for p, g in zip(prog.params, grads)]


def check_torch(torch, prog, res):
    gg = res.get("GG2")
    if torch is None or prog.big() or gg is None or is_err(gg):
        return None, False
    grads = torch_grads(torch, prog, "b")
    if grads is None:
        return None, False
    kloss, kgrads = grads_of(gg)
    # Normwise: relative to the largest gradient element, the loss and 1, so that
    # rounding-level values of gradients that cancel to about 0 (d(x/x)/dx: 1e-16
    # against PyTorch's 0.0) do not count.
    floor = max([1.0, abs(kloss) if math.isfinite(kloss) else 0.0] +
                [abs(v) for kg in kgrads for v in kg if math.isfinite(v)])
    for i, (ref, kg) in enumerate(zip(grads, kgrads)):
        if not all(math.isfinite(v) for v in ref):
            continue
        scale = floor
        for j, (r, k) in enumerate(zip(ref, kg)):
            # 1e-10, not 1e-12: dividing by log-softmax values near -1e-4 amplifies
            # rounding 10^4 times, and both sides then miss the exact gradient by
            # 2e-11 relative, differently (seed 4134, program 159; mpmath).
            if not (abs(r - k) <= 1e-10 * max(abs(r), abs(k), scale)):
                return f"torch: d/d p{i}[{j}] on B: graph-grad {k!r}, PyTorch {r!r}", True
    return None, True


# ---------------------------------------------------------------------------
# Driver: check a batch, shrink failures, write reproducers
# ---------------------------------------------------------------------------

class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.scratch = Path(tempfile.mkdtemp(prefix="kiln-diff-fuzz-"))
        self.runner = Runner(os.path.abspath(args.kiln), self.scratch, args.batch_timeout)
        self.torch = None if args.no_torch else torch_module()
        self.stats = {"programs": 0, "fd_checked": 0, "torch_checked": 0, "thread_checked": 0,
                      "failures": 0}
        self.seen = set()
        self.out = Path(args.out)
        self.group_members = {}

    def check_batch(self, progs, rng, threads_all=False):
        """{ident: [(kind, detail)]} for one batch of programs."""
        fd = {}
        for p in progs:
            fa = fd_points(p, rng, "a") if all(math.isfinite(v) for q in p.params if not q.big for v in q.a) else None
            fb = fd_points(p, rng, "b")
            fd[p.ident] = (fa, fb)
        res, crashes = self.runner.run_programs(progs, fd)
        fails = {}
        for p in progs:
            f = []
            if p.ident in crashes:
                f.append(("crash", crashes[p.ident]))
            r = res.get(p.ident, {})
            f += check_program(p, r, self.args.strict, self.stats)
            for tag, gtag, which in (("FD", "GG", "a"), ("FD2", "GG2", "b")):
                pts = fd[p.ident][0 if which == "a" else 1]
                msg, n = check_fd(p, r, tag, gtag, pts, which, self.args.strict,
                                  lambda w, p=p: torch_grads(self.torch, p, w, tell_ties=True))
                self.stats["fd_checked"] += n
                if msg:
                    f.append(("finite-differences", msg))
            msg, done = check_torch(self.torch, p, r)
            self.stats["torch_checked"] += done
            if msg:
                f.append(("pytorch", msg))
            if f:
                fails[p.ident] = f
        self.check_groups(progs, res, crashes, fails)
        # KILN_THREADS=1 against the run above (2 threads): the same batch without
        # finite differences; the group kernels come from the kernel cache.
        if threads_all or any(p.big() for p in progs) or rng.random() < self.args.thread_fraction:
            res1, crashes1 = self.runner.run_programs(progs, {}, threads=1)
            again = None
            for ident, r1 in res1.items():
                owner = self.owner(progs, res, ident)
                if owner is None:
                    continue
                self.stats["thread_checked"] += ident < GROUP_BASE
                for tag, v in sorted(r1.items()):
                    if tag in res.get(ident, {}) and res[ident][tag] != v:
                        # the same batch with 2 threads again: a difference there too
                        # is nondeterminism (uninitialised or freed memory), not threads
                        if again is None:
                            again, _ = self.runner.run_programs(progs, {}, threads=2)
                        kind = "threads"
                        if again.get(ident, {}).get(tag) != res[ident][tag]:
                            kind = "nondeterministic"
                        fails.setdefault(owner, []).append(
                            (kind, f"{tag} with KILN_THREADS=2: {res[ident][tag][:200]}\n"
                                   f"  with KILN_THREADS=1: {v[:200]}\n"
                                   f"  with KILN_THREADS=2 again: {again.get(ident, {}).get(tag, '')[:200]}"))
                        break
            for ident, desc in crashes1.items():
                owner = self.owner(progs, res, ident)
                if owner is not None and ident not in crashes:
                    fails.setdefault(owner, []).append(("crash", "KILN_THREADS=1: " + desc))
        return fails

    @staticmethod
    def owner(progs, res, ident):
        """The program to blame for results under `ident` (a program or a group)."""
        if ident < GROUP_BASE:
            return ident if any(p.ident == ident for p in progs) else None
        members = res.get(ident, {}).get("members")
        if not members:
            return None
        ids = [int(x) for x in re.findall(r"\d+", members)]
        return ids[0] if ids else None

    def check_groups(self, progs, res, crashes, fails):
        by_id = {p.ident: p for p in progs}
        for gid in sorted(set(res) | set(crashes)):
            if gid < GROUP_BASE:
                continue
            r = res.get(gid, {})
            ids = [int(x) for x in re.findall(r"\d+", r.get("members", ""))]
            members = [by_id[i] for i in ids if i in by_id]
            if not members:
                continue
            jit = gid % 100 >= JIT_GROUP_OFFSET
            if gid in crashes:
                what = "jit" if jit else "graph-compile-grad"
                fails.setdefault(members[0].ident, []).append(
                    ("crash", f"compiling or running the {what} group {ids}: {crashes[gid]}"))
                continue
            if jit:
                self.check_jit_group(members, ids, r, fails)
                continue
            for t1, t2 in (("GG", "CG"), ("GG2", "CG2")):
                a, b = normalise(r.get(t1), self.args.strict), normalise(r.get(t2), self.args.strict)
                if a is None or b is None or a == b or (is_err(a) and is_err(b)):
                    continue
                blame = members[0]
                unsure = True
                if not is_err(a) and not is_err(b):
                    try:
                        _, ga = grads_of(a)
                        _, gb = grads_of(b)
                        k = 0
                        for m in members:
                            n = len(m.params)
                            if ga[k:k + n] != gb[k:k + n]:
                                blame = m
                                unsure = False
                                break
                            k += n
                    except (AssertionError, IndexError, ValueError, TypeError):
                        pass
                if unsure:
                    # only the summed loss (or an error) differs: the report compiles
                    # each member on its own to find the one at fault
                    self.group_members[blame.ident] = members
                self.stats["group_failures"] = self.stats.get("group_failures", 0) + 1
                fails.setdefault(blame.ident, []).append(
                    ("graph-compile-grad-vs-graph-grad",
                     f"(found in a group of programs {ids}) {t1} {a[:300]}\n  {t2} {b[:300]}"))
                break

    def check_jit_group(self, members, ids, r, fails):
        """A jit group's result is the list of its members' FR results: a difference is
        blamed on the member whose element differs, else (an error on one path only, a
        kernel count) the report jits each member on its own."""
        f = []
        check_jit(lambda t: normalise(r.get(t), self.args.strict), "GT", "GT2", f)
        jt = r.get("JT")
        if jt is not None and not is_err(jt):
            self.stats["jit_checked"] = self.stats.get("jit_checked", 0) + len(members)
        if not f:
            return
        kind, detail = f[0]
        blame, unsure = members[0], True
        if kind == "jit-vs-graph-eval":
            for t, g in (("JT", "GT"), ("JTb", "GT"), ("JT2", "GT2")):
                a, b = r.get(t), r.get(g)
                if a is None or b is None or is_err(a) or is_err(b):
                    continue
                try:
                    la, lb = parse_tokens(normalise(a, False))[1], parse_tokens(normalise(b, False))[1]
                    for m, x, y in zip(members, la[1:], lb[1:]):
                        if x != y:
                            blame, unsure = m, False
                            break
                except (IndexError, ValueError):
                    pass
                if not unsure:
                    break
        if unsure:
            self.group_members[blame.ident] = members
        self.stats["group_failures"] = self.stats.get("group_failures", 0) + 1
        fails.setdefault(blame.ident, []).append((kind, f"(found in a jit group of programs {ids}) {detail}"))

    def still_fails(self, progs, kind, rng):
        """The first program (in order) that still fails with `kind`, or None."""
        counted, self.stats = self.stats, dict(self.stats)  # shrinking checks are not counted
        try:
            return self.still_fails_counted(progs, kind, rng)
        finally:
            self.stats = counted

    def still_fails_counted(self, progs, kind, rng):
        for i, p in enumerate(progs):
            p.ident = 900000 + i
            p.compile_own = kind == "graph-compile-grad-vs-graph-grad" or kind == "crash"
            p.compile_fwd = kind == "graph-compile-vs-graph-eval" or kind == "crash"
            p.jit_own = kind in JIT_KINDS or kind == "crash"
        fails = self.check_batch(progs, rng, threads_all=(kind == "threads"))
        for p in progs:
            if any(k == kind for k, _ in fails.get(p.ident, [])):
                return p, [d for k, d in fails[p.ident] if k == kind][0]
        return None, None

    def shrink(self, prog, kind, detail, rng):
        deadline = time.monotonic() + self.args.shrink_seconds
        best, best_detail = prog, detail
        while time.monotonic() < deadline:
            cands = sorted(shrink_candidates(best, rng), key=lambda c: (c.size(), len(c.params)))[:60]
            if not cands:
                break
            found, d = self.still_fails(cands, kind, rng)
            if found is None:
                break
            best, best_detail = found, d
        # then simpler inputs
        for _ in range(3):
            if time.monotonic() >= deadline:
                break
            cands = input_candidates(best)
            if not cands:
                break
            found, d = self.still_fails(cands, kind, rng)
            if found is None:
                break
            best, best_detail = found, d
        return best, best_detail

    def report(self, prog, kind, detail, rng, seed):
        first_ident = prog.ident
        members = self.group_members.pop(prog.ident, None)
        if members and (kind == "graph-compile-grad-vs-graph-grad" or kind in JIT_KINDS):
            found, d = self.still_fails([copy_program(m) for m in members], kind, rng)
            if found is not None:
                prog, detail = found, d
        ops = sorted({n.name or n.kind for n in prog.body.walk() if n.kind not in ("param", "const", "ctensor")})
        small, small_detail = self.shrink(prog, kind, detail, rng)
        small_ops = sorted({n.name or n.kind for n in small.body.walk()
                            if n.kind not in ("param", "const", "ctensor")})
        signature = (kind, tuple(small_ops))
        self.stats["failures"] += 1
        if signature in self.seen:
            print(f"FAIL ({kind}, same class as an earlier failure: {' '.join(small_ops)})", flush=True)
            return
        self.seen.add(signature)
        self.out.mkdir(parents=True, exist_ok=True)
        name = f"{kind}-seed{seed}-{first_ident}.lisp"
        small.ident = 1
        small.compile_own = small.compile_own or kind in ("graph-compile-grad-vs-graph-grad", "crash")
        small.compile_fwd = small.compile_fwd or kind in ("graph-compile-vs-graph-eval", "crash")
        small.jit_own = small.jit_own or kind in JIT_KINDS + ("crash",)
        text = (f";; diff_fuzz.py finding: {kind} (seed {seed}, program {first_ident}, "
                f"shrunk from {prog.size()} to {small.size()} nodes)\n"
                + "".join(f";; {line}\n" for line in small_detail.splitlines())
                + ";; Each line prints: 1 TAG (ok VALUE) or 1 TAG (err MESSAGE). Tags: E/E2 eager F on A/B,\n"
                + ";; G/G2 graph-eval F, EL/GL eager/graph-eval L, GG/GG2 graph-grad L, CF/CF2 graph-compile F,\n"
                + ";; CG/CG2 graph-compile-grad L (compiled for A), FD/FD2 L at x+h and x-h;\n"
                + ";; with some parameters packed into lists/vectors (At/Bt): ET/ET2 eager FR (a tree of F\n"
                + ";; and L), GT/GT2 graph-eval FR, GGT graph-grad LT, GA/GA2 (grad LT ARGNUMS), JT/JTb/JT2\n"
                + ";; (jit FR) on A, A, B and NK its kernel count; D2 (g'(x) g''(x)) nested, g'(x), g'(x+h),\n"
                + ";; g'(x-h) for g the loss along one parameter.\n"
                + HARNESS + program_lisp(small, *(fd_points(small, random.Random(0), w) for w in "ab")))
        (self.out / name).write_text(text)
        print(f"FAIL {kind}: {self.out / name} ({' '.join(small_ops)})", flush=True)
        for line in small_detail.splitlines()[:4]:
            print(f"    {line}", flush=True)

    def run_seed(self, seed, count):
        rng = random.Random(seed)
        progs = [generate(rng, i) for i in range(count)]
        for p in progs:
            p.compile_fwd = rng.random() < self.args.forward_compile_fraction
        nfail = 0
        for start in range(0, count, self.args.batch):
            batch = progs[start:start + self.args.batch]
            self.runner.history = []
            fails = self.check_batch(batch, rng)
            if fails:
                # the batch files as run, for failures that need the whole batch
                # (nondeterminism, memory errors that depend on earlier programs)
                keep = self.out / "batches"
                keep.mkdir(parents=True, exist_ok=True)
                for k, (threads, text) in enumerate(self.runner.history):
                    (keep / f"seed{seed}-from{start}-run{k}-threads{threads}.lisp").write_text(text)
            self.stats["programs"] += len(batch)
            self.stats["loops"] = self.stats.get("loops", 0) + sum(
                any(n.kind == "loop" for n in p.body.walk()) for p in batch)
            for p in batch:
                for kind, detail in fails.get(p.ident, [])[:1]:
                    nfail += 1
                    self.report(p, kind, detail, random.Random(seed * 1000003 + p.ident), seed)
        return nfail


def copy_program(p):
    q = Program(p.body, p.params, p.w, p.w_shape, p.ident, p.tree_seed)
    q.compile_fwd, q.compile_own, q.jit_own = p.compile_fwd, p.compile_own, p.jit_own
    return q


def replace_at(node, target, repl):
    if node is target:
        return repl
    if not node.kids:
        return node
    kids = [replace_at(k, target, repl) for k in node.kids]
    if all(a is b for a, b in zip(kids, node.kids)):
        return node
    return Node(node.kind, node.name, kids, node.extra, node.shape)


def compact(prog, body):
    """A program with `body`, keeping only the parameters it uses (renumbered)."""
    used = sorted({n.extra for n in body.walk() if n.kind == "param"})
    remap = {old: new for new, old in enumerate(used)}

    def ren(n):
        if n.kind == "param":
            return Node("param", None, [], remap[n.extra], n.shape)
        return Node(n.kind, n.name, [ren(k) for k in n.kids], n.extra, n.shape)
    params = [prog.params[i] for i in used]
    if not params:
        return None
    return Program(ren(body), params, prog.w, prog.w_shape, tree_seed=prog.tree_seed)


def shrink_candidates(prog, rng):
    out = []
    nodes = list(prog.body.walk())
    for n in nodes:
        repls = [k for k in n.kids if k.shape == n.shape]
        if n.kind not in ("param", "const", "ctensor"):
            same = [i for i, p in enumerate(prog.params) if p.shape == n.shape or (p.shape is None and n.shape == ())]
            repls += [Node("param", None, [], i, n.shape) for i in same[:2]]
            if n.shape:
                repls.append(Node("ctensor", None, [], [0.5] * prod(n.shape), n.shape))
            else:
                repls.append(Node("const", None, [], 0.5, ()))
        for r in repls:
            if n.kind in ("red", "matmul", "transpose", "reshape", "slice", "concat", "axisop", "argmax",
                          "take", "window", "lib") and r.kind == "const":
                continue
            c = compact(prog, replace_at(prog.body, n, r))
            if c is not None and c.size() < prog.size() or (c is not None and len(c.params) < len(prog.params)):
                out.append(c)
    return out


def input_candidates(prog):
    out = []
    for i, p in enumerate(prog.params):
        if p.big:
            continue
        for simple in (lambda v: 1.0 if math.isfinite(v) and v else v,
                       lambda v: round(v * 2) / 2 if math.isfinite(v) else v):
            a = [simple(v) for v in p.a]
            b = [simple(v) for v in p.b]
            if a != p.a or b != p.b:
                params = list(prog.params)
                params[i] = Param(p.shape, a, b)
                out.append(Program(prog.body, params, prog.w, prog.w_shape, tree_seed=prog.tree_seed))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=int(os.environ.get("KILN_DIFF_FUZZ_COUNT", "200")),
                    help="programs per seed (default $KILN_DIFF_FUZZ_COUNT or 200)")
    ap.add_argument("--minutes", type=float, default=0, help="long mode: run seeds seed, seed+1, ... this long")
    ap.add_argument("--batch", type=int, default=50, help="programs per kiln process")
    ap.add_argument("--batch-timeout", type=float, default=300)
    ap.add_argument("--shrink-seconds", type=float, default=90)
    ap.add_argument("--out", default="diff-fuzz-failures")
    ap.add_argument("--strict", action="store_true", help="also report the known open classes")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--forward-compile-fraction", type=float, default=0.1,
                    help="programs whose F is also compiled on its own (graph-compile)")
    ap.add_argument("--thread-fraction", type=float, default=0.2,
                    help="batches run again with KILN_THREADS=1 (always when one has a big matmul)")
    args = ap.parse_args()
    if not args.no_torch and torch_module() is None:
        reexec_for_torch()
    fz = Fuzzer(args)
    start = time.monotonic()
    print(f"diff_fuzz: seed {args.seed}, {'%g minutes' % args.minutes if args.minutes else '%d programs' % args.count}, "
          f"PyTorch {'on' if fz.torch else 'absent: skipped'}", flush=True)
    failures = 0
    try:
        if args.minutes:
            seed = args.seed
            while time.monotonic() - start < args.minutes * 60:
                failures += fz.run_seed(seed, args.count)
                el = time.monotonic() - start
                print(f"diff_fuzz: seed {seed} done; {fz.stats['programs']} programs, {failures} failures, "
                      f"{el:.0f} s", flush=True)
                seed += 1
        else:
            failures = fz.run_seed(args.seed, args.count)
    finally:
        shutil.rmtree(fz.scratch, ignore_errors=True)
    s = fz.stats
    print(f"diff_fuzz: {s['programs']} programs ({s.get('loops', 0)} with loops), {s['fd_checked']} finite-difference gradient elements, "
          f"{s['torch_checked']} PyTorch comparisons, {s['thread_checked']} KILN_THREADS=1 reruns, "
          f"{s.get('tree_checked', 0)} with packed arguments, {s.get('jit_checked', 0)} jitted, "
          f"{s.get('d2_checked', 0)} second derivatives, "
          f"{failures} failures in {time.monotonic() - start:.0f} s ({fz.runner.runs} kiln runs)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

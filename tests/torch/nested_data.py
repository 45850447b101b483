"""Test inputs for the PyTorch comparisons: nested lists of floats drawn from one
seeded stream, so every run compares the same numbers."""
import random


class NestedData:
    """data(*shape, lo=, hi=): nested lists of that shape (a number for no shape) of
    uniform floats in [lo, hi) (the defaults given here), drawn in row-major order
    from random.Random(seed), kept as .rng for other draws from the same stream.
    The values are not exact in binary, so rounding order shows."""

    def __init__(self, seed, lo, hi):
        self.rng = random.Random(seed)
        self.lo, self.hi = lo, hi

    def __call__(self, *shape, lo=None, hi=None):
        lo = self.lo if lo is None else lo
        hi = self.hi if hi is None else hi
        if not shape:
            return self.rng.uniform(lo, hi)
        return [self(*shape[1:], lo=lo, hi=hi) for _ in range(shape[0])]

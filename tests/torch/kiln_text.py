"""Python values as Kiln source text, shared by the PyTorch comparisons."""


def lisp(v):
    """A number or nested lists of numbers as a Lisp datum of floats."""
    if isinstance(v, list):
        return "(" + " ".join(lisp(x) for x in v) + ")"
    return repr(float(v))


def T(v):
    """Kiln code that builds the tensor of nested lists v."""
    return f"(tensor '{lisp(v)})"

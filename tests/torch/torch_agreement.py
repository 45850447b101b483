"""How the PyTorch comparisons judge Kiln's numbers, shared by them: a Kiln value
agrees with PyTorch's when they differ by at most 1e-12 relative to max(1, |torch|)."""

TOLERANCE = 1e-12


def numbers(text):
    """The numbers of a line Kiln printed, parentheses ignored."""
    return [float(t) for t in text.replace("(", " ").replace(")", " ").split()]


def relative_difference(k, w):
    return abs(k - w) / max(1.0, abs(w))


def agree(k_vals, w_vals):
    """Kiln's list of numbers against PyTorch's: the same length, every pair close."""
    return len(k_vals) == len(w_vals) and all(
        relative_difference(k, w) <= TOLERANCE for k, w in zip(k_vals, w_vals))


def report_by_name(prog, want, got):
    """want and got map a result's name to PyTorch's and Kiln's numbers. Prints each
    result that is missing or differs, then a summary line; returns the exit status."""
    bad = 0
    worst = 0.0
    for key, w_vals in want.items():
        k_vals = got.get(key)
        if k_vals is None or len(k_vals) != len(w_vals):
            print(f"{prog}: {key}: kiln printed {k_vals}, torch {w_vals}")
            bad += 1
            continue
        diffs = [relative_difference(a, b) for a, b in zip(k_vals, w_vals)]
        worst = max([worst] + diffs)
        if max(diffs) > TOLERANCE:
            print(f"{prog}: {key}: largest difference {max(diffs):.3g}\n  kiln  {k_vals}\n  torch {w_vals}")
            bad += 1
    print(f"{prog}: {len(want)} results compared, {bad} differ beyond 1e-12 relative "
          f"(largest difference {worst:.3g})")
    return 1 if bad else 0

#!/usr/bin/env python3
"""Kiln's data files against NumPy: .npy files NumPy writes load in Kiln with the same
float64 bits (every dtype Kiln reads, both byte orders, C and Fortran order, ranks 0
to 5, format versions 1.0 to 3.0); save-npy's files load in NumPy with the same bits
and are byte for byte what np.save writes for that array; write-csv's text reads back
in np.loadtxt with the same bits, and read-csv reads np.savetxt's (plain and gzip) with
the same bits, also space-separated ('delimiter) and through read-table; .npz archives
from numpy.savez and numpy.savez_compressed load in Kiln with the same bits, and
save-npz's archives load in numpy.load with the same bits and are byte for byte what
numpy.savez writes for the same float64 arrays. Skips (exit 0, saying so) where
Debian's python3-numpy is missing.

usage: interop.py KILN
"""
import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import numpy as np
except ImportError:
    print("numpy_interop: skipped (python3-numpy is not installed)")
    sys.exit(0)

kiln = str(Path(sys.argv[1]).resolve())
rng = np.random.default_rng(5)
failures = []
checks = [0]


def bits(a):
    """The float64 bits of `a` in C order, for exact comparison (NaNs included)."""
    return np.ascontiguousarray(np.asarray(a, dtype="<f8")).view("<u8")


def same(name, got, want):
    checks[0] += 1
    if got.shape != want.shape or not np.array_equal(bits(got), bits(want)):
        failures.append(f"{name}: got {got!r}, want {want!r}")


def special(n):
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1.7976931348623157e308, 0.1][:min(8, n)]
    return x


def arrays():
    """name -> array NumPy writes and Kiln reads."""
    out = {}
    for shape in [(), (1,), (7,), (3, 4), (2, 3, 4), (2, 1, 3, 1, 2)]:
        n = int(np.prod(shape))
        out[f"f8_{len(shape)}"] = special(max(n, 1))[:n].reshape(shape) if shape else np.float64(-2.5)
    cube = rng.standard_normal((3, 4, 5))
    out["f8_fortran"] = np.asfortranarray(cube)
    out["f8_big"] = cube.astype(">f8")
    out["f8_big_fortran"] = np.asfortranarray(cube.astype(">f8"))
    out["f4"] = rng.standard_normal((4, 6)).astype("<f4")
    out["f4_big_fortran"] = np.asfortranarray(rng.standard_normal((4, 6)).astype(">f4"))
    out["i8"] = rng.integers(-2**62, 2**62, (5, 3), dtype="<i8")
    out["i8_big"] = rng.integers(-2**62, 2**62, (5, 3)).astype(">i8")
    out["i4"] = rng.integers(-2**31, 2**31 - 1, (6,), dtype="<i4")
    out["i4_fortran"] = np.asfortranarray(rng.integers(-9, 9, (3, 2, 2), dtype="<i4"))
    out["i2"] = rng.integers(-2**15, 2**15 - 1, (2, 2), dtype="<i2")
    out["i1"] = rng.integers(-128, 127, (9,), dtype="i1")
    out["u8"] = rng.integers(0, 2**64 - 1, (4,), dtype="<u8")
    out["u4"] = rng.integers(0, 2**32 - 1, (4,), dtype="<u4")
    out["u2"] = rng.integers(0, 2**16 - 1, (4,), dtype="<u2").astype(">u2")
    out["u1"] = rng.integers(0, 255, (3, 3), dtype="u1")
    out["b1"] = rng.integers(0, 2, (2, 5)).astype(bool)
    out["b1_fortran"] = np.asfortranarray(rng.integers(0, 2, (3, 4)).astype(bool))
    return out


def run_kiln(program, cwd):
    p = subprocess.run([kiln, "-e", program], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=300)
    if p.returncode != 0:
        failures.append(f"kiln failed: {p.stdout.decode(errors='replace')}")
    return p.stdout.decode(errors="replace")


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-numpy-") as tmp:
        d = Path(tmp)
        arrs = arrays()
        # NumPy -> Kiln -> NumPy: Kiln loads each file and saves it again as float64.
        forms = []
        for name, a in arrs.items():
            np.save(d / f"{name}.npy", a)
            forms.append(f'(save-npy "{name}.out.npy" (load-npy "{name}.npy"))')
        for version in [(1, 0), (2, 0), (3, 0)]:
            name = f"v{version[0]}"
            arrs[name] = rng.standard_normal((2, 3))
            with open(d / f"{name}.npy", "wb") as f:
                np.lib.format.write_array(f, arrs[name], version=version)
            forms.append(f'(save-npy "{name}.out.npy" (load-npy "{name}.npy"))')
        # Kiln -> NumPy: save-npy and write-csv of random and special values.
        forms.append('(define r (tensor-randn \'(17 9) 3))')
        forms.append('(save-npy "kiln.npy" r) (write-csv "kiln.csv" r)')
        forms.append('(save-npy "kiln0.npy" (tensor 1.25))')
        forms.append('(save-npy "kiln1.npy" (tensor (list 0.1 -0.0 +inf.0 -inf.0 +nan.0 5e-324)))')
        forms.append('(write-csv "kiln1.csv" (tensor (list 0.1 -0.0 +inf.0 -inf.0 +nan.0 5e-324)))')
        forms.append('(save-npy "kiln3.npy" (tensor-rand \'(2 3 4) 8))')
        # NumPy's CSV -> Kiln -> npy, so NumPy can compare the bits.
        table = special(60).reshape(12, 5)
        np.savetxt(d / "numpy.csv", table, delimiter=",", fmt="%.17g")
        (d / "numpy.csv.gz").write_bytes(gzip.compress((d / "numpy.csv").read_bytes()))
        np.savetxt(d / "numpy_repr.csv", table, delimiter=", ", fmt="%r", header="a,b,c,d,e", comments="")
        forms.append('(save-npy "csv.npy" (read-csv "numpy.csv"))')
        forms.append('(save-npy "csvgz.npy" (read-csv "numpy.csv.gz"))')
        forms.append('(save-npy "csvrepr.npy" (read-csv "numpy_repr.csv" #t))')
        # space-separated text, and a table with a text column
        np.savetxt(d / "spaces.csv", table, delimiter="   ", fmt="%.17g")
        forms.append('(save-npy "spaces.npy" (read-csv "spaces.csv" \'delimiter #\\space))')
        with open(d / "labelled.csv", "w") as f:
            f.write("a,label,b\n")
            for i, row in enumerate(table):
                f.write("%r,class%d,%r\n" % (row[0], i % 3, row[1]))
        forms.append('(define tb (read-table "labelled.csv" #t))')
        forms.append('(save-npy "table_a.npy" (list-ref tb 1)) (save-npy "table_b.npy" (list-ref tb 3))')
        forms.append('(write-csv "table_names.csv" (tensor (map (lambda (s) (string-length s)) (car tb))))')
        forms.append('(write-csv "table_labels.csv" (tensor (map (lambda (s) (string->number (substring s 5 6))) '
                     '(vector->list (list-ref tb 2)))))')
        # .npz: NumPy's archives (stored and deflated) -> Kiln -> save-npz -> NumPy
        npz = {"weights": rng.standard_normal((7, 5)), "bias": special(5), "scalar": np.float64(3.5),
               "ints": rng.integers(-99, 99, (3, 4), dtype="<i4"), "fortran": np.asfortranarray(rng.standard_normal((2, 3, 4))),
               "big_endian": rng.standard_normal((3, 2)).astype(">f4"), "flags": rng.integers(0, 2, (6,)).astype(bool)}
        np.savez(d / "plain.npz", **npz)
        np.savez_compressed(d / "compressed.npz", **npz)
        forms.append('(save-npz "plain.out.npz" (load-npz "plain.npz"))')
        forms.append('(save-npz "compressed.out.npz" (load-npz "compressed.npz"))')
        forms.append('(write-csv "npz_keys.csv" (tensor (map (lambda (kv) (string-length (symbol->string (car kv)))) '
                     '(load-npz "compressed.npz"))))')
        run_kiln("\n".join(forms), d)
        same("read-csv 'delimiter #\\space", np.load(d / "spaces.npy"), table)
        same("read-table column a", np.load(d / "table_a.npy"), table[:, 0])
        same("read-table column b", np.load(d / "table_b.npy"), table[:, 1])
        same("read-table names", np.loadtxt(d / "table_names.csv"), np.array([1.0, 5.0, 1.0]))
        same("read-table labels", np.loadtxt(d / "table_labels.csv"), np.arange(12.0) % 3)
        same("load-npz order", np.loadtxt(d / "npz_keys.csv"), np.array([float(len(k)) for k in npz]))
        for kind in ["plain", "compressed"]:
            out = d / f"{kind}.out.npz"
            if not out.exists():
                failures.append(f"{kind}.npz: kiln wrote no archive")
                continue
            back = np.load(out)
            if list(back.keys()) != list(npz):
                failures.append(f"{kind}.npz: names {list(back.keys())}, want {list(npz)}")
            for k, a in npz.items():
                if k in back:
                    same(f"{kind}.npz {k}", back[k], np.asarray(a, dtype="<f8"))
            again = d / "again.npz"
            np.savez(again, **{k: np.asarray(a, dtype="<f8", order="C") for k, a in npz.items()})
            checks[0] += 1
            if out.read_bytes() != again.read_bytes():
                failures.append(f"{kind}.npz: save-npz's bytes differ from numpy.savez's")

        for name, a in arrs.items():
            out = d / f"{name}.out.npy"
            if not out.exists():
                failures.append(f"{name}: kiln wrote no file")
                continue
            got = np.load(out)
            want = np.asarray(a, dtype="<f8")
            same(name, got, want)
            if got.dtype != np.dtype("<f8") or not got.flags["C_CONTIGUOUS"]:
                failures.append(f"{name}: numpy reads {got.dtype}, C order {got.flags['C_CONTIGUOUS']}")
        # byte for byte what np.save writes (NumPy >= 1.23 leaves the spare header spaces)
        exact = hasattr(np.lib.format, "GROWTH_AXIS_MAX_DIGITS")
        for name in ["kiln", "kiln0", "kiln1", "kiln3", "f8_0", "f8_1", "f8_5", "i1"]:
            path = d / (name + ".npy" if name.startswith("kiln") else name + ".out.npy")
            if not path.exists():
                continue
            a = np.load(path)
            again = d / "again.npy"
            np.save(again, a)
            checks[0] += exact
            if exact and path.read_bytes() != again.read_bytes():
                failures.append(f"{name}: save-npy's bytes differ from np.save's")
        same("write-csv", np.loadtxt(d / "kiln.csv", delimiter=",", ndmin=2), np.load(d / "kiln.npy"))
        same("write-csv special", np.loadtxt(d / "kiln1.csv", delimiter=","), np.load(d / "kiln1.npy"))
        for name in ["csv", "csvgz", "csvrepr"]:
            same(f"read-csv {name}", np.load(d / f"{name}.npy"), table)
    for f in failures:
        print("FAIL", f)
    print(f"numpy_interop: {checks[0]} comparisons, {len(failures)} failures (numpy {np.__version__})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

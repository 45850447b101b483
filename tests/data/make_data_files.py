#!/usr/bin/python3
"""Writes the small data files the data-file golden tests read (tests/golden/data/).

usage: /usr/bin/python3 tests/data/make_data_files.py   (needs numpy; run once, commit the files)

npy/: one file per dtype Kiln reads, in C and Fortran order, big-endian forms, ranks 0
to 3, format versions 1.0 to 3.0, and files NumPy writes that Kiln refuses (complex,
objects, structured, float16, a zero-length dimension, rank 9). csv/: a small table
with a header, the same gzip-compressed (with and without a .gz name) and written
by NumPy's savetxt. npz/: archives numpy.savez and numpy.savez_compressed write, and
zip files load-npz refuses (another compression method, a member that is not .npy).
The values are chosen so every one is exact in every dtype.
"""
import gzip
import io
import zipfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
NPY = HERE / "npy"
CSV = HERE / "csv"
NPZ = HERE / "npz"


def save(name, a, version=None):
    with open(NPY / name, "wb") as f:
        np.lib.format.write_array(f, a, version=version, allow_pickle=True)


def zip64_archive(name, data):
    """A stored one-member zip whose directory and end record use the zip64 fields."""
    import struct
    import zlib
    crc, n, nm = zlib.crc32(data), len(data), name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0x21, crc, n, n, len(nm), 0) + nm + data
    extra = struct.pack("<HHQQQ", 1, 24, n, n, 0)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x032D, 45, 0, 0, 0, 0x21, crc, 0xFFFFFFFF,
                          0xFFFFFFFF, len(nm), len(extra), 0, 0, 0, 0o600 << 16, 0xFFFFFFFF) + nm + extra
    cd_at, z_at = len(local), len(local) + len(central)
    z_end = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 1, 1, len(central), cd_at)
    locator = struct.pack("<IIQI", 0x07064B50, 0, z_at, 1)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return local + central + z_end + locator + end


def main():
    NPY.mkdir(exist_ok=True)
    CSV.mkdir(exist_ok=True)
    base = np.array([[1, 2, 3], [4, 5, 100]])
    for code in ["f8", "f4", "i8", "i4", "i2", "i1", "u8", "u4", "u2", "u1"]:
        a = base.astype("<" + code)
        save(f"{code}_c.npy", a)
        save(f"{code}_f.npy", np.asfortranarray(a))
        if code not in ("i1", "u1"):
            save(f"{code}_big.npy", base.astype(">" + code))
    save("b1_c.npy", np.array([[True, False, True], [False, False, True]]))
    save("b1_f.npy", np.asfortranarray(np.array([[True, False, True], [False, False, True]])))
    save("f8_special.npy", np.array([-0.0, np.inf, -np.inf, np.nan, 5e-324, 1.7976931348623157e308, 0.1]))
    save("f4_fraction.npy", np.array([0.1, -2.5, 1e-40], dtype="<f4"))
    save("i8_extremes.npy", np.array([-(2**63), 2**63 - 1, 2**53 + 1], dtype="<i8"))
    save("scalar.npy", np.float64(2.5))
    save("rank1.npy", np.arange(5, dtype="<f8"))
    cube = np.arange(24, dtype="<f8").reshape(2, 3, 4)
    save("rank3_c.npy", cube)
    save("rank3_f.npy", np.asfortranarray(cube))
    save("rank3_f_i4.npy", np.asfortranarray(cube.astype(">i4")))
    save("v2.npy", base.astype("<f8"), version=(2, 0))
    save("v3.npy", base.astype("<f8"), version=(3, 0))
    # what NumPy writes and Kiln refuses
    save("complex.npy", np.array([1 + 2j, 3 - 1j]))
    save("object.npy", np.array([1, "two", None], dtype=object))
    save("structured.npy", np.zeros(2, dtype=[("x", "<f8"), ("y", "<i4")]))
    save("float16.npy", np.array([1, 2], dtype="<f2"))
    save("empty.npy", np.zeros((0, 3)))
    save("rank9.npy", np.zeros((1,) * 9))
    save("unicode.npy", np.array(["ab", "c"]))

    # CSV: four rows of three columns under a header; CRLF line ends and spaces
    # around cells, which read-csv allows.
    text = b"x, y ,label\r\n1.5,-2,0\r\n 3e2 , 0.25 ,1\r\n-0.0,7,2\r\n1e-3,8.5,1\r\n"
    (CSV / "table.csv").write_bytes(text)
    # mtime=0 and no file name in the gzip header: the same bytes on every run
    for name in ("table.csv.gz", "table_gzipped.csv"):
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as g:
            g.write(text)
        (CSV / name).write_bytes(buf.getvalue())
    NPZ.mkdir(exist_ok=True)
    arrays = {"w": base.astype("<f8"), "b": np.array([0.5, -1.0]), "n": np.int32(7),
              "f": np.asfortranarray(base.astype(">i2")), "mask": np.array([True, False])}
    np.savez(NPZ / "plain.npz", **arrays)
    np.savez_compressed(NPZ / "compressed.npz", **arrays)
    np.savez(NPZ / "empty.npz")
    np.savez(NPZ / "positional.npz", np.arange(3.0), np.ones((1, 2)))
    with zipfile.ZipFile(NPZ / "bzip2.npz", "w", compression=zipfile.ZIP_BZIP2) as z:
        z.writestr(zipfile.ZipInfo("w.npy"), (NPY / "f8_c.npy").read_bytes(), compress_type=zipfile.ZIP_BZIP2)
    with zipfile.ZipFile(NPZ / "not_npy.npz", "w") as z:
        z.writestr(zipfile.ZipInfo("w.npy"), (NPY / "f8_c.npy").read_bytes())
        z.writestr(zipfile.ZipInfo("notes.txt"), b"hello")
    with zipfile.ZipFile(NPZ / "complex.npz", "w") as z:
        z.writestr(zipfile.ZipInfo("c.npy"), (NPY / "complex.npy").read_bytes())
    # The zip64 forms a reader meets in archives past 4 GiB, on a small one: the
    # central directory's sizes and offset in a zip64 extra field, and the end
    # record's fields in a zip64 end record found through its locator.
    (NPZ / "zip64.npz").write_bytes(zip64_archive("w.npy", (NPY / "f8_c.npy").read_bytes()))
    np.savetxt(CSV / "savetxt.csv", np.array([[0.1, 2.0, -3.5e-8], [1e300, np.nan, -np.inf]]),
               delimiter=",", fmt="%.17g")


if __name__ == "__main__":
    main()

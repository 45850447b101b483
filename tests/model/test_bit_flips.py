#!/usr/bin/env python3
"""Model files refuse damage: every single-bit flip of a saved file, and every
float the format does not allow, is a clear error naming the file (exit 1, never
a signal), while intact files of versions 1 and 2 (text), 2 (binary, what save-model
writes) and 3 (the binary format as first numbered) load.

usage: test_bit_flips.py KILN_BINARY
"""
import os
import subprocess
import sys
import struct
import tempfile
import zlib

KILN = os.path.realpath(sys.argv[1])
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def kiln(args, cwd, timeout=300):
    return subprocess.run([KILN] + args, cwd=cwd, capture_output=True, text=True,
                          encoding="latin-1", timeout=timeout)


def with_checksum(body):
    """A text version 2 file: BODY (ending in 'end\\n') and its crc32 line."""
    return body + "crc32 %08x\n" % zlib.crc32(body.encode("latin-1"))


def lisp_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def load_each(names, cwd):
    """Loads every file in one kiln process; returns {name: report line}."""
    prog = "".join(
        "(guard (e (#t (display (condition/report-string e))))"
        " (write (load-model %s)))\n(newline)\n" % lisp_string(n) for n in names)
    with open(os.path.join(cwd, "load_each.lisp"), "w") as f:
        f.write(prog)
    r = kiln(["load_each.lisp"], cwd)
    if r.returncode != 0:
        fail("batch load ended with status %d: %s" % (r.returncode, r.stderr[-500:]))
        return {}
    lines = r.stdout.split("\n")[:len(names)]
    return dict(zip(names, lines))


with tempfile.TemporaryDirectory() as d:
    # A small file holding every kind of item.
    r = kiln(["-e", '(save-model "m.kiln" (list 1 -2 2.5 "hi" (quote s) #\\a #t (quote ())'
              ' (cons 1 2) (vector 3) (tensor (quote ((1 2) (3 4)))) (tensor (quote (5 6 7)))))'], d)
    if r.returncode != 0:
        sys.exit("save-model failed: " + r.stderr)
    whole = open(os.path.join(d, "m.kiln"), "rb").read()
    # The binary format, version 2 (docs/model-format.md): the header text, its checksum line,
    # zeros to a multiple of 64, each tensor's bytes at a multiple of 64.
    line2_end = whole.index(b"\n", 13) + 1
    text_end = line2_end + int(whole[13:line2_end].split()[1])
    body, crc_line = whole[:text_end], whole[text_end:text_end + 15]
    if not whole.startswith(b"kiln-model 2\nheader ") or not body.endswith(b"\nend\n"):
        fail("unexpected layout: %r" % whole[:40])
    if crc_line != b"crc32 %08x\n" % zlib.crc32(body):
        fail("checksum line %r is not zlib's crc32 of the rest" % crc_line)
    data_start = (text_end + 15 + 63) // 64 * 64
    tensor_lines = [l.split() for l in body.split(b"\n") if l.startswith(b"tensor ")]
    want = [((1.0, 2.0, 3.0, 4.0), 0), ((5.0, 6.0, 7.0), 64)]
    if len(tensor_lines) != 2:
        fail("expected two tensor lines, got %r" % tensor_lines)
    for words, (values, offset) in zip(tensor_lines, want):
        at = data_start + int(words[-3])
        raw = whole[at:at + 8 * len(values)]
        if words[1] != b"<f8" or int(words[-3]) != offset or raw != struct.pack("<%dd" % len(values), *values):
            fail("tensor line %r does not point at %r" % (words, values))
        if words[-1] != b"%08x" % zlib.crc32(raw):
            fail("tensor line %r: the checksum is not zlib's crc32 of its bytes" % words)
    if len(whole) != data_start + 64 + 24:
        fail("file size %d, expected %d" % (len(whole), data_start + 64 + 24))

    # Every single-bit flip, loaded under guard in one process.
    names = []
    for i in range(len(whole) * 8):
        damaged = bytearray(whole)
        damaged[i // 8] ^= 1 << (i % 8)
        name = "flip%d.kiln" % i
        with open(os.path.join(d, name), "wb") as f:
            f.write(damaged)
        names.append(name)
    reports = load_each(names, d)
    for name in names:
        got = reports.get(name, "")
        if not got.startswith("load-model: %s: " % name):
            fail("%s (bit %s) was not refused with an error naming it: %r"
                 % (name, name[4:-5], got[:200]))
    # Some of them uncaught, each in its own process: status 1 and the error line.
    for name in names[::41]:
        r = kiln([ "-e", "(load-model %s)" % lisp_string(name)], d)
        if r.returncode != 1 or ("error: load-model: %s: " % name) not in r.stderr:
            fail("%s uncaught: status %d, stderr %r" % (name, r.returncode, r.stderr[:200]))

    # Intact files load: the saved one, the same numbered 3 (its header checksum
    # recomputed, as the first builds wrote it), text version 2, and version 1 without a checksum.
    head3 = b"kiln-model 3" + whole[12:text_end]
    renumbered_3 = head3 + b"crc32 %08x\n" % zlib.crc32(head3) + whole[text_end + 15:]
    cases = {
        "saved.kiln": (whole.decode("latin-1"),
                       '(1 -2 2.5 "hi" s #\\a #t () (1 . 2) #(3) #<tensor 2x2 [1.0 2.0 3.0 4.0]> #<tensor 3 [5.0 6.0 7.0]>)'),
        "v2.kiln": (with_checksum("kiln-model 2\nlist 2\nint 5\ntensor 1 2\n0x1p+0 0x1p+1\nend\n"),
                    "(5 #<tensor 2 [1.0 2.0]>)"),
        "v1.kiln": ("kiln-model 1\nlist 2\nint 5\nfloat 0x1.8p+1\nend\n", "(5 3.0)"),
        # the binary format as first numbered (3): the same layout
        "v3.kiln": (renumbered_3.decode("latin-1"),
                    '(1 -2 2.5 "hi" s #\\a #t () (1 . 2) #(3) #<tensor 2x2 [1.0 2.0 3.0 4.0]> #<tensor 3 [5.0 6.0 7.0]>)'),
        "hex.kiln": (with_checksum("kiln-model 2\nvector 6\nfloat -0x0p+0\nfloat inf\nfloat -inf\n"
                                   "float nan\nfloat 0x0.0000000000001p-1022\nfloat 0x1.fffffffffffffp+1023\nend\n"),
                     "#(-0.0 +inf.0 -inf.0 +nan.0 5e-324 1.7976931348623157e+308)"),
    }
    # Refused although the checksum is right: floats and integers the format
    # does not allow, in both versions.
    bad = {
        "decimal": ("float 2.5", "line 2: expected a hex float (like 0x1.8p+1), inf, -inf or nan, got '2.5'"),
        "infinity": ("float infinity", "got 'infinity'"),
        "plus_inf": ("float +inf", "got '+inf'"),
        "upper": ("float 0X1P+0", "got '0X1P+0'"),
        "no_exp": ("float 0x1.8", "got '0x1.8'"),
        "exp_digits": ("float 0x1p", "got '0x1p'"),
        "space": ("float  0x1p+0", "got ' 0x1p+0'"),
        "overflow": ("float 0x1p+1024", "line 2: float out of range for a double: '0x1p+1024'"),
        "huge_exp": ("float 0x1p+99999999999999999999", "float out of range"),
        "underflow": ("float 0x1p-1080", "float out of range for a double: '0x1p-1080'"),
        "tensor_decimal": ("tensor 1 2\n0x1p+0 1.5", "line 3: expected a hex float"),
        "tensor_inf": ("tensor 1 2\n0x1p+0 Infinity", "got 'Infinity'"),
        "int_plus": ("int +5", "line 2: expected an integer, got '+5'"),
        "int_space": ("int  5", "expected an integer, got ' 5'"),
    }
    expect_error = {}
    for key, (item, msg) in bad.items():
        cases_v = {"v2_" + key: with_checksum("kiln-model 2\n%s\nend\n" % item),
                   "v1_" + key: "kiln-model 1\n%s\nend\n" % item}
        for n, text in cases_v.items():
            expect_error[n + ".kiln"] = msg
            cases[n + ".kiln"] = (text, None)
    # The checksum line itself.
    body2 = "kiln-model 2\nint 7\nend\n"
    good_crc = "%08x" % zlib.crc32(body2.encode())
    other = "%08x" % (zlib.crc32(body2.encode()) ^ 1)
    for n, text, msg in [
        ("crc_wrong", body2 + "crc32 %s\n" % other,
         "checksum mismatch (the file says %s, its contents give %s): the file is damaged" % (other, good_crc)),
        ("crc_upper", body2 + "crc32 %s\n" % good_crc.upper(), "line 4: expected 'crc32' and 8 lowercase hex digits"),
        ("crc_short", body2 + "crc32 %s\n" % good_crc[:7], "expected 'crc32' and 8 lowercase hex digits"),
        ("crc_missing", body2, "no checksum line at line 3 (the file is truncated or damaged)"),
        ("crc_after_extra", body2 + "int 1\ncrc32 %08x\n" % zlib.crc32((body2 + "int 1\n").encode()),
         "line 4: unexpected text after 'end'"),
        ("v1_with_crc", "kiln-model 1\nint 7\nend\ncrc32 %s\n" % good_crc, "line 4: unexpected text after 'end'"),
        ("version4", "kiln-model 4\nint 7\nend\n", "unsupported format version 4 (this Kiln reads versions 1 to 3)"),
        ("version3_text", "kiln-model 3\nint 7\nend\n", "line 2: expected 'header' and a byte count, got 'int 7'"),
        ("version0", "kiln-model 0\nint 7\nend\n", "unsupported format version 0"),
    ]:
        cases[n + ".kiln"] = (text, None)
        expect_error[n + ".kiln"] = msg
    for n, (text, _) in cases.items():
        with open(os.path.join(d, n), "w", encoding="latin-1") as f:
            f.write(text)
    reports = load_each(list(cases), d)
    for n, (_, want) in cases.items():
        got = reports.get(n, "")
        if want is not None:
            if got != want:
                fail("%s: loaded %r, want %r" % (n, got, want))
        elif not got.startswith("load-model: %s: " % n) or expect_error[n] not in got:
            fail("%s: got %r, want an error naming it with %r" % (n, got, expect_error[n]))

    # save-model never writes through a link planted at its temporary name
    # (PATH.tmp.PID.N, and PATH.tmp.PID as it once was; exec keeps the shell's
    # pid) and leaves no temporary file.
    with open(os.path.join(d, "victim"), "w") as f:
        f.write("keep me\n")
    r = subprocess.run(["bash", "-c", 'ln -s victim planted.kiln.tmp.$$ && ln -s victim planted.kiln.tmp.$$.0 && exec "$0" -e "$1"', KILN,
                        '(save-model "planted.kiln" 42) (display (load-model "planted.kiln"))'],
                       cwd=d, capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or r.stdout != "42":
        fail("save next to a planted link: status %d, %r %r" % (r.returncode, r.stdout, r.stderr))
    if open(os.path.join(d, "victim")).read() != "keep me\n":
        fail("save-model wrote through the link planted at its temporary name")
    left = sorted(n for n in os.listdir(d) if n.startswith("planted.kiln"))
    if len(left) != 3 or left[0] != "planted.kiln" or not all(os.path.islink(os.path.join(d, n)) for n in left[1:]):
        fail("after the save the directory holds %r" % left)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("model files: every bit flip and every disallowed float refused")

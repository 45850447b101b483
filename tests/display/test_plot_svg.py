"""plot-svg writes a standalone SVG that an XML parser accepts: its size, one
<polyline> per series (in order, one point per finite value), the title in a
<title> element and as visible text, every series name in the legend, escaped
markup characters, and UTF-8 text kept (é, a character made by integer->char).

Usage: test_plot_svg.py PATH-TO-KILN
"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def run_kiln(kiln, program, tmp):
    path = os.path.join(tmp, "prog.lisp")
    with open(path, "wb") as f:
        f.write(program.encode("utf-8"))
    p = subprocess.run([kiln, path], capture_output=True, timeout=60, cwd=tmp)
    if p.returncode != 0:
        raise AssertionError(f"kiln failed ({p.returncode}): {p.stdout!r} {p.stderr!r}")
    return p.stdout.decode("utf-8", "replace")


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def texts(root):
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def test(kiln):
    tmp = tempfile.mkdtemp(prefix="kiln-svg-")
    title = "Loss <MLP> & \"digits\" 'ü'"
    quoted = title.replace('"', '\\"')
    run_kiln(kiln, f"""
(define loss (map (lambda (i) (exp (- (/ i 10.0)))) (iota 40)))
(plot-svg "three.svg"
          (cons "train <a&b>" loss)
          (cons "val" (tensor (map (lambda (i) (* 1.1 (exp (- (/ i 12.0))))) (iota 30))))
          (list 0.5 +nan.0 0.25 +inf.0 0.1)
          "{quoted}")
(plot-svg "one.svg" '(3))
(plot-svg "accented.svg" '(1 2) (string #\\x (integer->char 233)))
""", tmp)

    root = ET.parse(os.path.join(tmp, "three.svg")).getroot()
    check(root.tag == SVG + "svg", f"root element: {root.tag}")
    for attr in ("width", "height", "viewBox"):
        check(attr in root.attrib, f"svg has no {attr}")
    w, h = float(root.get("width")), float(root.get("height"))
    check(root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}", root.get("viewBox"))
    lines = root.findall(f".//{SVG}polyline")
    check(len(lines) == 3, f"{len(lines)} polylines for 3 series")
    counts = [len(p.get("points").split()) for p in lines]
    check(counts == [40, 30, 3], f"points per polyline: {counts} (non-finite points are skipped)")
    for p in lines:
        for xy in p.get("points").split():
            x, y = map(float, xy.split(","))
            check(0 <= x <= w and 0 <= y <= h, f"point {xy} outside the picture")
    colours = [p.get("stroke") for p in lines]
    check(len(set(colours)) == 3, f"series colours: {colours}")
    check(root.find(SVG + "title").text == title, f"<title>: {root.find(SVG + 'title').text!r}")
    shown = texts(root)
    check(title in shown, f"visible title missing from {shown}")
    for name in ("train <a&b>", "val", "series 3"):
        check(name in shown, f"legend entry {name!r} missing from {shown}")
    check(any(t == "0" for t in shown) and any(t == "30" for t in shown), f"x tick labels: {shown}")
    check(len(shown) >= 8, f"too few labels: {shown}")

    root = ET.parse(os.path.join(tmp, "one.svg")).getroot()
    check(len(root.findall(f".//{SVG}polyline")) == 1, "one series, one polyline")
    check(root.find(SVG + "title") is None, "no title given, no <title>")
    check(len(root.findall(f".//{SVG}circle")) == 1, "a single point gets a visible dot")

    root = ET.parse(os.path.join(tmp, "accented.svg")).getroot()
    check(root.find(SVG + "title").text == "x\u00e9", f"non-ASCII character: {root.find(SVG + 'title').text!r}")

    # An unwritable path is an error naming it, and nothing is left behind.
    out = run_kiln(kiln, '(display (guard (e ((file-error? e) (condition/report-string e)))'
                         ' (plot-svg "no/such/dir/x.svg" (list 1 2))))', tmp)
    check(out.startswith('plot-svg: cannot open "no/such/dir/x.svg"'), out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        test(os.path.abspath(sys.argv[1]))
    except (AssertionError, subprocess.TimeoutExpired, ET.ParseError) as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    print("PASS")

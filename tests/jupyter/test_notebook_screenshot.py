#!/usr/bin/env python3
"""examples/digits.ipynb as people read it (SPEC §19, docs/notebook.md): executed on the
Kiln kernel by nbclient (5 epochs), exported to HTML by nbconvert and photographed by
headless Chromium. The picture must exist and not be blank, and the loss chart must be
drawn in it: the curve's colour (plot's first series, #1f77b4) covers 60 and
more pixels in some band of 40 rows (its flat tail), which the same page without the
chart's output has nowhere.

Skips (exit 77) without python3-nbclient, python3-nbconvert, python3-pil or chromium,
without the kernel built in, or without the digits data (python3-sklearn's file).

usage: test_notebook_screenshot.py KILN REPO_DIR
"""
import copy
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import notebook_render  # noqa: E402

try:
    import nbclient  # noqa: F401
    import nbconvert  # noqa: F401
    from PIL import Image, ImageChops
except ImportError as e:
    print(f"test_notebook_screenshot: skipped ({e.name} is not installed: python3-nbclient, "
          "python3-nbconvert, python3-pil)")
    sys.exit(77)

KILN = os.path.abspath(sys.argv[1])
REPO = os.path.abspath(sys.argv[2])
CURVE = (0x1F, 0x77, 0xB4)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def curve_pixels(png):
    """The most pixels within 10 per channel of the curve's colour in any band of 40
    rows, and where that band starts. (Code cells hold a few such pixels per line;
    a chart's curve holds hundreds in the rows of its flat tail.)"""
    im = Image.open(png).convert("RGB")
    bands = [band.point(lambda v, c=c: 255 if abs(v - c) <= 10 else 0) for band, c in zip(im.split(), CURVE)]
    mask = ImageChops.multiply(ImageChops.multiply(bands[0], bands[1]), bands[2])
    w, h = mask.size
    return max((mask.crop((0, y, w, y + 40)).histogram()[255], y) for y in range(0, h - 40, 10))


def main():
    if not notebook_render.browser():
        print("test_notebook_screenshot: skipped (no headless browser: Debian's chromium)")
        sys.exit(77)
    if not os.path.exists(os.environ.get("KILN_DIGITS_CSV", notebook_render.DIGITS)):
        print("test_notebook_screenshot: skipped (the digits data, python3-sklearn's file, is missing)")
        sys.exit(77)
    if "not built in" in subprocess.run([KILN, "jupyter", "--help"], capture_output=True, text=True).stderr:
        print("test_notebook_screenshot: skipped (this kiln was built without the Jupyter kernel)")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="kiln_screenshot_") as tmp:
        nb = notebook_render.execute(KILN, os.path.join(REPO, "examples", "digits.ipynb"), 5, tmp)
        html = notebook_render.to_html(nb)
        check("<polyline" in html, "the HTML holds the chart's curve")
        png = os.path.join(tmp, "notebook.png")
        notebook_render.screenshot(html, png)
        check(os.path.getsize(png) > 10000, "a PNG was written: %d bytes" % os.path.getsize(png))
        im = Image.open(png).convert("RGB")
        check(im.size == (1000, 5000), "the picture's size: %r" % (im.size,))
        colours = im.getcolors(maxcolors=1 << 20) or []
        check(len(colours) > 20, "not one colour: %d colours" % len(colours))
        white = sum(n for n, c in colours if c == (255, 255, 255))
        check(white < 0.98 * im.size[0] * im.size[1], "not blank: %d of the pixels are white" % white)
        check(notebook_render.content_height(png) > 1500, "the cells fill the page")

        # The chart: the page with it against the page without its output.
        with_chart, at = curve_pixels(png)
        bare = copy.deepcopy(nb)
        for cell in bare.cells:
            if cell.cell_type == "code" and "(plot " in cell.source:
                cell.outputs = []
        bare_png = os.path.join(tmp, "bare.png")
        notebook_render.screenshot(notebook_render.to_html(bare), bare_png)
        without, _ = curve_pixels(bare_png)
        check(with_chart >= 60 and without * 3 < with_chart,
              "the curve is drawn: %d pixels of its colour in rows %d-%d, at most %d in any 40 rows without "
              "the chart" % (with_chart, at, at + 40, without))
    if failures:
        print("test_notebook_screenshot: %d failure(s)" % len(failures))
        sys.exit(1)
    print("test_notebook_screenshot: ok (%d curve pixels in 40 rows, at most %d without the chart)" % (with_chart, without))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A notebook as people read it: executed on the Kiln kernel (nbclient), exported to
HTML (nbconvert, lab template) and photographed by headless Chromium. Used by
test_notebook_screenshot.py; run alone it refreshes what the repository keeps:

    python3 tests/jupyter/notebook_render.py KILN REPO --execute   # re-run examples/digits.ipynb
                                                                   # (30 epochs) and save its outputs
    python3 tests/jupyter/notebook_render.py KILN REPO --docs-image # docs/notebook-digits.png from
                                                                   # the saved notebook

Needs python3-nbclient, python3-nbconvert, python3-pil and chromium (Debian packages).
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "nbconvert", "svg_as_is.html.j2")
DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def browser():
    """The headless browser's path, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def execute(kiln, notebook_path, epochs, workdir):
    """The notebook executed on a Kiln kernel installed under workdir."""
    import nbformat
    from nbclient import NotebookClient
    subprocess.run([kiln, "jupyter", "install", "--prefix", workdir], check=True, capture_output=True)
    env = {"JUPYTER_PATH": os.path.join(workdir, "share", "jupyter"),
           "JUPYTER_DATA_DIR": os.path.join(workdir, "data"),
           "JUPYTER_RUNTIME_DIR": os.path.join(workdir, "runtime"),
           "KILN_NOTEBOOK_EPOCHS": str(epochs)}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        nb = nbformat.read(notebook_path, as_version=4)
        NotebookClient(nb, kernel_name="kiln", timeout=600, startup_timeout=60, record_timing=False,
                       resources={"metadata": {"path": workdir}}).execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


def to_html(nb):
    """The notebook as one HTML page (lab template; SVG outputs as they are)."""
    from nbconvert import HTMLExporter
    body, _ = HTMLExporter(template_name="lab", template_file=TEMPLATE).from_notebook_node(nb)
    return body


def screenshot(html, png_path, width=1000, height=5000):
    """Chromium's picture of the page (no network: only what the page holds)."""
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(html)
        cmd = [browser(), "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={tmp}/profile",
               f"--window-size={width},{height}", f"--screenshot={png_path}", "file://" + page]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode != 0 or not os.path.exists(png_path):
            raise RuntimeError(f"chromium failed ({p.returncode}): {p.stderr[-2000:]}")


def content_height(png_path, margin=40):
    """The height down to the last row that is not plain white background."""
    from PIL import Image, ImageOps
    box = ImageOps.invert(Image.open(png_path).convert("L")).point(lambda v: 255 if v > 5 else 0).getbbox()
    return min(Image.open(png_path).size[1], box[3] + margin) if box else 0


def main():
    kiln, repo, what = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    notebook = os.path.join(repo, "examples", "digits.ipynb")
    if what == "--execute":
        import nbformat
        with tempfile.TemporaryDirectory() as tmp:
            nb = execute(kiln, notebook, 30, tmp)
        nbformat.write(nb, notebook)
        print("wrote", notebook)
    elif what == "--docs-image":
        import nbformat
        from PIL import Image
        out = os.path.join(repo, "docs", "notebook-digits.png")
        with tempfile.TemporaryDirectory() as tmp:
            png = os.path.join(tmp, "page.png")
            screenshot(to_html(nbformat.read(notebook, as_version=4)), png)
            im = Image.open(png).convert("RGB")
            im = im.crop((0, 0, im.size[0], content_height(png)))
            im.quantize(colors=64).save(out, optimize=True)
        print("wrote", out)
    else:
        sys.exit("usage: notebook_render.py KILN REPO --execute|--docs-image")


if __name__ == "__main__":
    main()

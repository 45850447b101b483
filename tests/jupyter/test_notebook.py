#!/usr/bin/env python3
"""examples/digits.ipynb executed end to end by nbclient on the Kiln kernel (SPEC §19,
docs/notebook.md), with 2 epochs instead of 30: every cell runs without an error, the
digit shows as a tensor table, the training cell's progress line ends complete, the
loss chart is an SVG with one polyline, and the confusion matrix is a 10x10 table.

Skips (exit 77) where Debian's python3-nbclient is missing, where this kiln has no
kernel, or where the digits data (python3-sklearn's file) is absent.

usage: test_notebook.py KILN REPO_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

try:
    import nbformat
    from nbclient import NotebookClient
except ImportError:
    print("test_notebook: skipped (python3-nbclient is not installed)")
    sys.exit(77)

KILN = os.path.abspath(sys.argv[1])
REPO = os.path.abspath(sys.argv[2])
DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def outputs_of(nb, marker):
    """The outputs of the code cell whose source contains marker."""
    for cell in nb.cells:
        if cell.cell_type == "code" and marker in cell.source:
            return cell.outputs
    raise AssertionError("no cell contains %r" % marker)


def main():
    if not os.path.exists(os.environ.get("KILN_DIGITS_CSV", DIGITS)):
        print("test_notebook: skipped (the digits data, python3-sklearn's %s, is missing)" % DIGITS)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="kiln_notebook_test_")
    try:
        installed = subprocess.run([KILN, "jupyter", "install", "--prefix", tmp], capture_output=True, text=True)
        if "not built in" in installed.stderr:
            print("test_notebook: skipped (this kiln was built without the Jupyter kernel)")
            sys.exit(77)
        check(installed.returncode == 0, "kiln jupyter install: %s" % installed.stderr)
        os.environ["JUPYTER_PATH"] = os.path.join(tmp, "share", "jupyter")
        os.environ["JUPYTER_DATA_DIR"] = os.path.join(tmp, "data")
        os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(tmp, "runtime")
        os.environ["KILN_NOTEBOOK_EPOCHS"] = "2"
        nb = nbformat.read(os.path.join(REPO, "examples", "digits.ipynb"), as_version=4)
        client = NotebookClient(nb, kernel_name="kiln", timeout=300, startup_timeout=60,
                                resources={"metadata": {"path": tmp}})
        client.execute()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        check(not errors, "no error in %r: %r" % (cell.source[:40], errors))
        check(cell.execution_count is not None, "every cell ran")

    outs = outputs_of(nb, "(tensor-shape data)")
    check(outs and outs[-1]["data"]["text/plain"] == "(1797 65)", "the data's shape: %r" % outs)

    outs = outputs_of(nb, "(reshape (tensor-slice pixels 0 0 1) '(8 8))")
    result = [o for o in outs if o.output_type == "execute_result"]
    check(result and result[0]["data"]["text/plain"].startswith("#<tensor 8x8\n  [["), "the digit by rows")
    check(result and result[0]["data"]["text/html"].count("<td>") == 64, "the digit as a table")
    check(any(o.output_type == "stream" and "the first image is a 0" in o.text for o in outs), "stdout of a cell")

    outs = outputs_of(nb, "(define result (train))")
    progress = [o for o in outs if o.output_type == "display_data"]
    check(len(progress) == 1, "one progress line (updated in place): %r" % [o.output_type for o in outs])
    if progress:
        line = progress[0]["data"]["text/plain"]
        check(line.startswith("digits [########################]") and "90/90" in line, "the progress line ends complete: %r" % line)
    check(any(o.output_type == "stream" and "2 epochs of 45 minibatches" in o.text for o in outs), "the training summary")

    outs = outputs_of(nb, '(plot (cons "training loss" curve)')
    svg = [o["data"]["image/svg+xml"] for o in outs if o.output_type == "display_data" and "image/svg+xml" in o["data"]]
    check(len(svg) == 1, "the loss chart is shown as SVG")
    if svg:
        root = ET.fromstring(svg[0].encode("utf-8"))
        lines = root.findall(".//{http://www.w3.org/2000/svg}polyline")
        check(len(lines) == 1, "one polyline for the loss curve")
        check("digits: mean loss per epoch" in svg[0], "the chart's title")

    outs = outputs_of(nb, "(reshape (tensor confusion) '(10 10))")
    result = [o for o in outs if o.output_type == "execute_result"]
    check(result and result[0]["data"]["text/html"].count("<td>") == 100, "the confusion matrix table")
    acc = [o.text for o in outs if o.output_type == "stream"]
    check(acc and "test accuracy" in acc[0], "the accuracy line: %r" % acc)

    if failures:
        print("test_notebook: %d failure(s)" % len(failures))
        sys.exit(1)
    print("test_notebook: ok")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The Jupyter kernel (SPEC §19, docs/notebook.md) driven by jupyter_client through
every message it answers: kernel_info, execute (streams, execute_result with the
tensor's HTML, errors with backtrace lines, execution counts, stdin), is_complete,
complete, inspect, the rich output of plot, plot-svg, display-html, display-svg and
with-progress, interrupt (the cell stops, the kernel goes on), messages with a bad
or no signature (refused, logged, never run), restart and shutdown.

Skips (exit 77) where Debian's python3-jupyter-client is missing. Every wait has a
timeout, so a kernel that stops answering fails the test instead of hanging it.

usage: test_kernel.py KILN
"""
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import zmq
    from jupyter_client import KernelManager
    from jupyter_client.session import Session
except ImportError:
    print("test_kernel: skipped (python3-jupyter-client is not installed)")
    sys.exit(77)

KILN = os.path.abspath(sys.argv[1])

TIMEOUT = 60  # seconds for any one reply; a cold JIT start under load can be slow
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def drain_iopub(kc, *parent_ids, timeout=TIMEOUT):
    """Every iopub message of the requests parent_ids, up to the idle status of each."""
    msgs = []
    waiting = set(parent_ids)
    deadline = time.time() + timeout
    while waiting and time.time() < deadline:
        try:
            m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        parent = m["parent_header"].get("msg_id")
        if parent not in parent_ids:
            continue
        msgs.append(m)
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            waiting.discard(parent)
    if waiting:
        raise AssertionError("no idle status for %s within %ss: %r" % (waiting, timeout, msgs))
    return msgs


def run(kc, code, **kw):
    """Executes code; returns (reply content, iopub messages)."""
    msg_id = kc.execute(code, **kw)
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    check(reply["parent_header"]["msg_id"] == msg_id, "reply belongs to its request: %r" % code)
    return reply["content"], drain_iopub(kc, msg_id)


def of_type(msgs, t):
    return [m["content"] for m in msgs if m["msg_type"] == t]


def stream_text(msgs, name):
    return "".join(c["text"] for c in of_type(msgs, "stream") if c["name"] == name)


def main():
    tmp = tempfile.mkdtemp(prefix="kiln_jupyter_test_")
    try:
        installed = subprocess.run([KILN, "jupyter", "install", "--prefix", tmp], capture_output=True, text=True)
        if "not built in" in installed.stderr:
            print("test_kernel: skipped (this kiln was built without the Jupyter kernel)")
            sys.exit(77)
        check(installed.returncode == 0, "kiln jupyter install: %s" % installed.stderr)
        with open(os.path.join(tmp, "share", "jupyter", "kernels", "kiln", "kernel.json")) as f:
            spec = json.load(f)
        check(spec["argv"] == [KILN, "jupyter", "kernel", "{connection_file}"], "the spec runs this kiln: %r" % spec["argv"])
        os.environ["JUPYTER_PATH"] = os.path.join(tmp, "share", "jupyter")
        os.environ["JUPYTER_DATA_DIR"] = os.path.join(tmp, "data")
        os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(tmp, "runtime")
        log_path = os.path.join(tmp, "kernel.log")
        with open(log_path, "w") as log:
            km = KernelManager(kernel_name="kiln")
            km.start_kernel(stderr=log, cwd=tmp)
            try:
                kc = km.client()
                kc.start_channels()
                kc.wait_for_ready(timeout=TIMEOUT)
                session_tests(km, kc, tmp, log_path)
                kc.stop_channels()
            finally:
                if km.is_alive():
                    km.shutdown_kernel(now=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("test_kernel: %d failure(s)" % len(failures))
        sys.exit(1)
    print("test_kernel: ok")


def session_tests(km, kc, tmp, log_path):
    # kernel_info
    info = kc.kernel_info(reply=True, timeout=TIMEOUT)["content"]
    check(info["status"] == "ok", "kernel_info ok")
    check(info["protocol_version"] == "5.3", "protocol 5.3: %r" % info.get("protocol_version"))
    check(info["language_info"]["name"] == "kiln", "language kiln")
    check(info["language_info"]["file_extension"] == ".lisp", "file extension")

    # kernel_info on control too; comm_info and history; an unknown request is logged
    kc.control_channel.send(kc.session.msg("kernel_info_request", {}))
    r = kc.get_control_msg(timeout=TIMEOUT)
    check(r["msg_type"] == "kernel_info_reply" and r["content"]["protocol_version"] == "5.3", "kernel_info on control")
    for request, answer, field in [("comm_info_request", "comm_info_reply", "comms"),
                                   ("history_request", "history_reply", "history")]:
        kc.shell_channel.send(kc.session.msg(request, {}))
        r = kc.get_shell_msg(timeout=TIMEOUT)
        check(r["msg_type"] == answer and r["content"]["status"] == "ok" and field in r["content"], request)
    kc.shell_channel.send(kc.session.msg("frobnicate_request", {}))

    # execute: stdout and stderr streams, the value in write form, counts
    reply, msgs = run(kc, '(display "hello") (newline) (write-string "careful" (current-error-port)) (list 1 "a" 2.5)')
    check(reply["status"] == "ok", "execute ok")
    check(reply["execution_count"] == 1, "first count is 1: %r" % reply.get("execution_count"))
    check(stream_text(msgs, "stdout") == "hello\n", "stdout stream: %r" % stream_text(msgs, "stdout"))
    check(stream_text(msgs, "stderr") == "careful", "stderr stream: %r" % stream_text(msgs, "stderr"))
    results = of_type(msgs, "execute_result")
    check(len(results) == 1 and results[0]["data"]["text/plain"] == '(1 "a" 2.5)', "execute_result write form: %r" % results)
    check(results and results[0]["execution_count"] == 1, "execute_result count")
    inputs = of_type(msgs, "execute_input")
    check(inputs and inputs[0]["execution_count"] == 1, "execute_input echoes the count")
    states = [c["execution_state"] for c in of_type(msgs, "status")]
    check(states == ["busy", "idle"], "busy then idle: %r" % states)
    # The result comes after the output the cell printed.
    kinds = [m["msg_type"] for m in msgs]
    check(kinds.index("execute_result") > max(i for i, k in enumerate(kinds) if k == "stream"), "result after streams: %r" % kinds)

    # definitions persist; only the last form's value is the result; unspecified shows nothing
    reply, msgs = run(kc, "(define (f x) (car x)) (define y 41) (+ y 1)")
    check(of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "42", "last form's value")
    reply, msgs = run(kc, "(define z 1)")
    check(reply["status"] == "ok" and not of_type(msgs, "execute_result"), "no result for an unspecified value")
    check(reply["execution_count"] == 3, "counts go up: %r" % reply["execution_count"])

    # silent: no broadcast, no count
    reply, msgs = run(kc, "(+ 1 1)", silent=True)
    check(reply["status"] == "ok" and reply["execution_count"] == 3, "silent does not count")
    check(not of_type(msgs, "execute_result") and not of_type(msgs, "execute_input"), "silent broadcasts nothing")

    # errors: the message and the backtrace lines, in the reply and on iopub
    reply, msgs = run(kc, "(f 5)")
    check(reply["status"] == "error", "error reply")
    check(reply["execution_count"] == 4, "an error counts too")
    errors = of_type(msgs, "error")
    check(len(errors) == 1, "one error message")
    if errors:
        e = errors[0]
        # Where car was called: in f, which cell 2 defined.
        check(e["evalue"] == "<cell-2>:1:15: error: car: argument 1 must be a pair, got 5",
              "evalue is the message, cells named by their count: %r" % e["evalue"])
        check(e["traceback"][0] == e["evalue"], "traceback starts with the message")
        check(any(line.startswith("  at f (<cell-2>:1:") for line in e["traceback"]), "backtrace names f: %r" % e["traceback"])
        check(e["traceback"][-1] == "  at top level (<cell-4>:1:1)", "backtrace ends at the cell: %r" % e["traceback"])
    reply, msgs = run(kc, "(+ y 2)")
    check(of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "43", "the kernel goes on after an error")
    reply, msgs = run(kc, "(car")
    check(reply["status"] == "error" and of_type(msgs, "error"), "a read error is an error")

    # REPL commands work in cells
    reply, msgs = run(kc, ",describe car")
    check("car: builtin procedure" in stream_text(msgs, "stdout"), ",describe in a cell: %r" % stream_text(msgs, "stdout"))

    # tensors: rows as text, an HTML table beside it
    reply, msgs = run(kc, "(tensor '((1 2 3) (4 5 6)))")
    data = of_type(msgs, "execute_result")[0]["data"]
    check(data["text/plain"] == "#<tensor 2x3\n  [[1.0 2.0 3.0]\n   [4.0 5.0 6.0]]>", "tensor rows: %r" % data["text/plain"])
    check("text/html" in data and data["text/html"].count("<td>") == 6 and "<td>6.0</td>" in data["text/html"], "tensor table")
    reply, msgs = run(kc, "(reshape (arange 900) '(30 30))")
    html = of_type(msgs, "execute_result")[0]["data"]["text/html"]
    check(html.count("<tr>") == 22, "a 30x30 table shows 20 rows and an elision row")
    reply, msgs = run(kc, '(display (tensor \'((1 2) (3 4))))')
    check(stream_text(msgs, "stdout") == "#<tensor 2x2 [1.0 2.0 3.0 4.0]>", "display keeps one line")

    # rich output
    reply, msgs = run(kc, '(display-html "<b>bold</b>") (display-svg "<svg xmlns=\\"http://www.w3.org/2000/svg\\"></svg>")')
    shown = of_type(msgs, "display_data")
    check(len(shown) == 2, "two displays: %r" % shown)
    if len(shown) == 2:
        check(shown[0]["data"].get("text/html") == "<b>bold</b>", "display-html")
        check(shown[1]["data"].get("image/svg+xml", "").startswith("<svg"), "display-svg")
        check(all("text/plain" in d["data"] for d in shown), "every display has a plain form")
    reply, msgs = run(kc, "(display-html 5)")
    check(reply["status"] == "error" and "display-html" in reply["evalue"], "display-html checks its argument")

    reply, msgs = run(kc, '(plot (cons "loss" (list 3 2 1.5 1.2)) "training")')
    shown = of_type(msgs, "display_data")
    # The <svg> element alone: an XML declaration inside HTML breaks nbconvert's export.
    check(len(shown) == 1 and shown[0]["data"].get("image/svg+xml", "").startswith("<svg"), "plot shows an SVG")
    check(shown and "training" in shown[0]["data"]["text/plain"] and "+---" in shown[0]["data"]["text/plain"], "plot's plain form is the text chart")
    check(stream_text(msgs, "stdout") == "", "plot writes no text in a notebook")
    reply, msgs = run(kc, '(with-output-to-string (lambda () (plot (list 1 2 3))))')
    check("+---" in of_type(msgs, "execute_result")[0]["data"]["text/plain"], "plot into a string port still draws text")
    svg_path = os.path.join(tmp, "chart.svg")
    reply, msgs = run(kc, '(plot-svg "%s" (list 1 2 3) "saved")' % svg_path)
    shown = of_type(msgs, "display_data")
    check(os.path.exists(svg_path) and shown and shown[0]["data"].get("image/svg+xml", "").startswith("<svg"), "plot-svg writes and shows")
    check(open(svg_path).read().startswith("<?xml"), "the file keeps its XML declaration")
    reply, msgs = run(kc, '(display-svg "<?xml version=\\"1.0\\"?>\\n<svg xmlns=\\"http://www.w3.org/2000/svg\\"/>")')
    shown = of_type(msgs, "display_data")
    check(shown and shown[0]["data"].get("image/svg+xml") == '<svg xmlns="http://www.w3.org/2000/svg"/>',
          "display-svg drops the XML declaration: %r" % shown)

    run(kc, "(define (pause us) (let ((t0 (current-jiffy))) (let wait () (when (< (- (current-jiffy) t0) us) (wait)))))")
    reply, msgs = run(kc, '(with-progress 5 "steps" (lambda (tick) (let loop ((i 0)) (when (< i 5) (pause 120000) (tick i) (loop (+ i 1))))))')
    first = of_type(msgs, "display_data")
    updates = of_type(msgs, "update_display_data")
    check(len(first) == 1, "one progress display: %r" % first)
    check(len(updates) >= 2, "the progress line is updated in place: %d updates" % len(updates))
    if first and updates:
        pid = first[0]["transient"]["display_id"]
        check(all(u["transient"]["display_id"] == pid for u in updates), "updates name the same display")
        check("5/5" in updates[-1]["data"]["text/plain"], "the last update is complete: %r" % updates[-1]["data"]["text/plain"])
    check(stream_text(msgs, "stderr") == "", "no progress text on stderr")

    # is_complete
    def is_complete(code):
        kc.is_complete(code)
        return kc.get_shell_msg(timeout=TIMEOUT)["content"]
    check(is_complete("(+ 1 2)")["status"] == "complete", "complete form")
    r = is_complete("(define (g x)\n  (+ x")
    check(r["status"] == "incomplete" and r.get("indent") == "    ", "open brackets are incomplete: %r" % r)
    check(is_complete('"open string')["status"] == "incomplete", "an open string is incomplete")
    check(is_complete("(+ 1 2))")["status"] == "invalid", "an unmatched bracket is invalid")

    # complete
    kc.complete("(display (ca", 12)
    r = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    check(r["status"] == "ok" and "car" in r["matches"] and "cadr" in r["matches"], "completes bound names: %r" % r["matches"][:5])
    check(r["cursor_start"] == 10 and r["cursor_end"] == 12, "completion range: %r" % r)
    check(all(m.startswith("ca") for m in r["matches"]), "only names with the prefix")
    kc.complete("(list \"λ\" y", 11)
    r = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    check("y" in r["matches"] and r["cursor_start"] == 10, "positions count code points: %r" % r)
    kc.complete(",desc", 5)
    r = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    check(r["matches"] == ["describe"], "completes REPL commands: %r" % r["matches"])

    # inspect: what ,describe says
    kc.inspect("(map car x)", 3)
    r = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    check(r["status"] == "ok" and r["found"] and r["data"]["text/plain"].startswith("map: "), "inspect map: %r" % r)
    kc.inspect("(f 1)", 1)
    r = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    check(r["found"] and "arity: 1 argument" in r["data"]["text/plain"], "inspect a user procedure: %r" % r)
    kc.inspect("(no-such-name 1)", 4)
    r = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    check(r["status"] == "ok" and not r["found"], "inspect an unbound name")

    # stdin: (read-line) asks the notebook
    msg_id = kc.execute('(string-append (read-line) "!")', allow_stdin=True)
    req = kc.get_stdin_msg(timeout=TIMEOUT)
    check(req["msg_type"] == "input_request", "input_request")
    kc.input("typed")
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    msgs = drain_iopub(kc, msg_id)
    check(reply["status"] == "ok" and of_type(msgs, "execute_result")[0]["data"]["text/plain"] == '"typed!"', "read-line reads the reply")
    reply, msgs = run(kc, "(eof-object? (read-line))", allow_stdin=False)
    check(of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "#t", "without stdin, end of file")

    # user_expressions
    reply, msgs = run(kc, "1", user_expressions={"a": "(* y 2)", "b": "(car 1)"})
    ue = reply["user_expressions"]
    check(ue["a"]["status"] == "ok" and ue["a"]["data"]["text/plain"] == "82", "user expression")
    check(ue["b"]["status"] == "error", "user expression error")

    # interrupt: the cell stops, the kernel goes on
    count_before = run(kc, "0")[0]["execution_count"]
    msg_id = kc.execute("(let loop () (loop))")
    time.sleep(1.0)
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    msgs = drain_iopub(kc, msg_id)
    check(reply["status"] == "error" and reply["ename"] == "interrupted", "interrupted: %r" % reply)
    check(reply["execution_count"] == count_before + 1, "an interrupted cell counts")
    reply, msgs = run(kc, "(+ y 1)")
    check(of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "42", "the kernel goes on after an interrupt")

    # interrupt_request on the control channel works as the signal does
    msg_id = kc.execute("(let loop () (loop))")
    time.sleep(0.5)
    ctl = kc.session.msg("interrupt_request", {})
    kc.control_channel.send(ctl)
    ctl_reply = kc.get_control_msg(timeout=TIMEOUT)
    check(ctl_reply["msg_type"] == "interrupt_reply", "interrupt_reply on control")
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    drain_iopub(kc, msg_id)
    check(reply["status"] == "error" and reply["ename"] == "interrupted", "interrupt_request stops the cell")

    # stop_on_error: requests queued behind a failing cell are aborted
    bad = kc.execute("(pause 300000) (car 1)")  # the next request arrives while this one runs
    queued = kc.execute("(define queued-ran #t)")
    r1 = kc.get_shell_msg(timeout=TIMEOUT)
    r2 = kc.get_shell_msg(timeout=TIMEOUT)
    replies = {r1["parent_header"]["msg_id"]: r1["content"], r2["parent_header"]["msg_id"]: r2["content"]}
    check(replies[bad]["status"] == "error" and replies[queued]["status"] == "aborted", "queued cell aborted: %r" % replies)
    drain_iopub(kc, bad, queued)

    # bad and unsigned messages are refused, logged and never run
    forged = Session(key=b"not-the-key", username="mallory")
    unsigned = Session(key=b"", username="mallory")
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger = 0
    sock.connect("tcp://%s:%d" % (km.ip, km.shell_port))
    for s, name in [(forged, "forged_a"), (unsigned, "forged_b")]:
        s.send(sock, "execute_request", {"code": "(define %s #t)" % name, "silent": False, "store_history": True,
                                          "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
    raw = kc.session.msg("execute_request", {"code": "(define forged_c #t)", "silent": False})
    frames = kc.session.serialize(raw)
    frames[frames.index(b"<IDS|MSG>") + 1] = b"0" * 64  # right shape, wrong digest
    sock.send_multipart(frames)
    sock.send_multipart([b"<IDS|MSG>", b"junk"])  # not even a message
    # A real, signed message replayed: refused the second time.
    run(kc, "(define replayed 0)")
    replay = kc.session.msg("execute_request", {"code": "(set! replayed (+ replayed 1))", "silent": False})
    replay_frames = kc.session.serialize(replay)
    sock.send_multipart(replay_frames)
    check(sock.poll(TIMEOUT * 1000), "the signed message is answered")
    sock.recv_multipart()
    sock.send_multipart(replay_frames)
    check(not sock.poll(1500), "no reply to a replayed message")
    sock.close()
    for name in ["forged_a", "forged_b", "forged_c"]:
        reply, msgs = run(kc, name)
        check(reply["status"] == "error" and "Undefined variable: " + name in reply["evalue"], "%s was never run: %r" % (name, reply.get("evalue")))
    reply, msgs = run(kc, "replayed")
    check(of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "1", "the replayed message ran once")
    time.sleep(0.3)
    with open(log_path) as f:
        log = f.read()
    check(log.count("refused a message on shell: bad signature") == 2, "bad signatures logged: %r" % log)
    check("refused a message on shell: unsigned message" in log, "unsigned message logged")
    check("refused a message on shell:" in log and "frames after the delimiter" in log, "malformed message logged")
    check("replayed message" in log, "replay logged")
    check("ignored a frobnicate_request on shell" in log, "an unknown request is logged")

    # restart: a fresh kernel, nothing defined
    km.restart_kernel()
    kc.wait_for_ready(timeout=TIMEOUT)
    reply, msgs = run(kc, "y")
    check(reply["status"] == "error" and reply["execution_count"] == 1, "a restarted kernel starts afresh: %r" % reply)

    # shutdown: the reply, then the process ends by itself
    kc.shutdown()
    r = kc.get_control_msg(timeout=TIMEOUT)
    check(r["msg_type"] == "shutdown_reply" and r["content"]["status"] == "ok", "shutdown_reply")
    deadline = time.time() + 10
    while km.is_alive() and time.time() < deadline:
        time.sleep(0.1)
    check(not km.is_alive(), "the kernel exits after shutdown")


if __name__ == "__main__":
    main()

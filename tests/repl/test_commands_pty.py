"""The REPL's debugging aids as a user meets them, at a pseudo-terminal with
readline on: ,bt after an error in nested calls, ,expand, ,describe of syntax,
aligned ,apropos, records echoed with their field names, error locations in
REPL entries and in loaded files, Ctrl-C and Ctrl-D. Each case is its own
session and reports the line of its failing check (pty_harness.run_cases).

How a case reads the REPL: enter() types one entry, waits for the echo of its
last line, and returns everything printed (stdout and stderr, escape codes
removed) up to the next prompt.
"""
import os
import re
import tempfile

from pty_harness import Repl, check, run_cases, CTRL_C, CTRL_D

PROMPT = "kiln> "


def start(kiln, files=None):
    """A REPL in a fresh directory holding `files` (name -> text), at its first prompt."""
    cwd = tempfile.mkdtemp(prefix="kiln-pty-commands-")
    for name, text in (files or {}).items():
        os.makedirs(os.path.dirname(os.path.join(cwd, name)), exist_ok=True)
        with open(os.path.join(cwd, name), "w") as f:
            f.write(text)
    r = Repl(kiln, cwd=cwd)
    r.expect(PROMPT)
    return r


def enter(r, text):
    """Types `text` (lines after the first go behind the continuation prompt) and
    returns the output up to the next prompt."""
    r.send(text + "\n")
    r.expect(re.escape(text.split("\n")[-1]) + r"\n")
    return r.expect(r"(?s)(.*?)" + re.escape(PROMPT)).group(1)


def same(got, want, what):
    check(got == want, f"{what}:\n  got  {got!r}\n  want {want!r}")


# ---------------------------------------------------------------- ,bt

def bt_shows_each_frame_with_its_location(kiln):
    r = start(kiln, {"lib.lisp": "(define (inner v)\n  (vector-ref v 10))\n(define (middle v) (+ 1 (inner v)))\n"})
    try:
        same(enter(r, ",bt"), "no error yet in this session\n", ",bt before any error")
        same(enter(r, ",load lib.lisp"), "", ",load")
        same(enter(r, "(define (outer v)\n  (list (middle v)))"), "", "a two-line definition")
        headline = "lib.lisp:2:3: error: vector-ref: index 10 out of range for a vector of length 2\n"
        same(enter(r, "(outer (vector 1 2))"), headline, "the error")
        same(enter(r, ",bt"), headline +
             "  at inner (lib.lisp:2:3)\n"
             "  at middle (lib.lisp:3:25)\n"
             "  at outer (<repl-1>:2:9)\n"
             "  at top level (<repl-2>:1:1)\n", ",bt")
        # Another command does not replace the last error; a new error does.
        enter(r, ",describe car")
        same(enter(r, ",bt").splitlines()[0], headline.strip(), ",bt after a command")
        same(enter(r, "(car '())"), "<repl-3>:1:1: error: car: argument 1 must be a pair, got ()\n", "a second error")
        same(enter(r, ",bt"), "<repl-3>:1:1: error: car: argument 1 must be a pair, got ()\n"
             "  at top level (<repl-3>:1:1)\n", ",bt of the second error")
        # An error in a macro's own code, while a use of it is expanded.
        enter(r, "(defmacro first-of (x) (car x))")
        same(enter(r, "(list 1\n  (first-of 5))"), "<repl-4>:1:24: error: car: argument 1 must be a pair, got 5\n",
             "an error expanding a macro")
        same(enter(r, ",bt"), "<repl-4>:1:24: error: car: argument 1 must be a pair, got 5\n"
             "  at first-of (<repl-4>:1:24)\n  at top level (<repl-5>:1:1)\n", ",bt of an expansion error")
    finally:
        r.close()


# ---------------------------------------------------------------- ,expand

def expand_user_macros(kiln):
    r = start(kiln)
    try:
        enter(r, "(define-syntax swap! (syntax-rules () ((_ a b) (let ((t a)) (set! a b) (set! b t)))))")
        same(enter(r, ",expand (swap! p q)"), "(let ((t p)) (set! p q) (set! q t))\n", "a syntax-rules macro")
        enter(r, "(defmacro my-unless (c . body) `(if ,c #f (begin ,@body)))")
        same(enter(r, ",expand (my-unless (ready?) (go) 'done)"),
             "(if (ready?) #f (begin (go) (quote done)))\n", "a defmacro")
        # A macro whose expansion is a cond: the cond is shown, not expanded further.
        enter(r, "(define-syntax my-if (syntax-rules () ((_ c a b) (cond (c a) (else b)))))")
        same(enter(r, ",expand (my-if (> x 0) 'pos 'neg)"),
             "(cond ((> x 0) (quote pos)) (else (quote neg)))\n", "a macro expanding to cond")
        # Expanding is not evaluating: the display is shown, not run.
        same(enter(r, ",expand (my-unless #f (display \"ran\"))"), "(if #f #f (begin (display \"ran\")))\n",
             "no evaluation")
        same(enter(r, ",expand"), "error: usage: ,expand FORM\n", "no form")
    finally:
        r.close()


def expand_let_and_cond(kiln):
    r = start(kiln)
    try:
        # let and cond are special forms, not macros: they come back as typed.
        same(enter(r, ",expand (let ((a 1) (b 2)) (+ a b))"), "(let ((a 1) (b 2)) (+ a b))\n", "let")
        same(enter(r, ",expand (cond ((assv 2 al) => cdr) (else 'none))"),
             "(cond ((assv 2 al) => cdr) (else (quote none)))\n", "cond")
        same(enter(r, ",describe let").splitlines()[0], "let: special form", "let is a special form")
        # let-values is a prelude macro, so it does expand.
        out = enter(r, ",expand (let-values (((a b) (values 1 2))) (+ a b))")
        check(re.fullmatch(r"\(call-with-values \(lambda \(\) \(values 1 2\)\) \(lambda \(\S+ \S+\) .*\)\n", out),
              f"let-values expands to call-with-values: {out!r}")
    finally:
        r.close()


# ---------------------------------------------------------------- ,describe

def describe_when_and_cond(kiln):
    r = start(kiln)
    try:
        same(enter(r, ",describe when"), "when: special form\n  syntax: (when TEST BODY...)\n"
             "  doc: Evaluates BODY when TEST is true.\n", ",describe when")
        out = enter(r, ",describe cond")
        check(out.startswith("cond: special form\n  syntax: (cond (TEST BODY...)"), f",describe cond: {out!r}")
        check(re.search(r"\n  doc: \S[^\n]*\n$", out), f",describe cond has a doc line: {out!r}")
        out = enter(r, ",d receive")  # a prelude macro, through an abbreviated command
        check(re.fullmatch(r"receive: macro\n  syntax: [^\n]+\n  doc: [^\n]+\n  defined at <prelude>:\d+:1\n", out),
              f",describe receive: {out!r}")
        same(enter(r, ",describe"), "error: usage: ,describe NAME\n", "no name")
        same(enter(r, ",describe (car x)"), "error: usage: ,describe NAME\n", "not a name")
        same(enter(r, ",describe no-such-name"), "error: ,describe: no-such-name is not bound\n", "unbound")
    finally:
        r.close()


def describe_user_macros(kiln):
    r = start(kiln)
    try:
        enter(r, "(define-syntax swap!\n  (syntax-rules ()\n    \"Exchanges the values of A and B.\""
                 "\n    ((_ a b) (let ((t a)) (set! a b) (set! b t)))))")
        same(enter(r, ",describe swap!"), "swap!: macro\n  syntax: (swap! a b)\n"
             "  doc: Exchanges the values of A and B.\n  defined at <repl-1>:1:1\n", "define-syntax with a doc string")
        same(enter(r, "(define x 1) (define y 2) (swap! x y) (list x y)"), "(2 1)\n", "the documented macro works")
        enter(r, "(define-syntax my-or (syntax-rules () ((_) #f) ((_ e) e) ((_ e r ...) (let ((t e)) (if t t (my-or r ...))))))")
        same(enter(r, ",describe my-or"), "my-or: macro\n  syntax: (my-or)\n          (my-or e)\n"
             "          (my-or e r ...)\n  defined at <repl-3>:1:1\n", "define-syntax without a doc: its patterns")
        enter(r, "(defmacro while (c . body) \"Runs BODY while C holds.\" `(let lp () (when ,c ,@body (lp))))")
        same(enter(r, ",describe while"), "while: macro\n  doc: Runs BODY while C holds.\n  defined at <repl-4>:1:1\n",
             "defmacro with a doc string")
        # A macro named like a special form replaces it, and is described as what it now is.
        enter(r, "(define-syntax unless (syntax-rules () ((_ c e) (if c 'no e))))")
        same(enter(r, "(unless #t 1)"), "no\n", "the user's unless is in force")
        same(enter(r, ",describe unless"), "unless: macro\n  syntax: (unless c e)\n  defined at <repl-5>:1:1\n",
             "a user macro over a special form")
        same(enter(r, ",apropos unles"), "unless  macro\n", ",apropos says macro too")
    finally:
        r.close()


# ---------------------------------------------------------------- ,apropos

def apropos_columns_are_aligned(kiln):
    long_name = "zz-a-name-longer-than-any-name-kiln-defines-by-itself"
    r = start(kiln, {"names.lisp": "(define zz-λ 2)\n"})  # loaded: the test must not depend on the locale
    try:
        enter(r, f"(define {long_name} 1)")
        enter(r, "(define (zz-f) 1)")
        enter(r, "(define-syntax zz-m (syntax-rules () ((_) 1)))")
        enter(r, "(load \"names.lisp\")")
        lines = enter(r, ",apropos zz-").splitlines()
        rows = [re.fullmatch(r"(\S+)( {2,})(\S.*)", line) for line in lines]
        check(all(rows) and len(rows) == 4, f"four rows of NAME  KIND: {lines!r}")
        same([m.group(1) for m in rows], sorted([long_name, "zz-f", "zz-m", "zz-λ"]), "the names, sorted")
        same([m.group(3) for m in rows], ["variable", "procedure", "macro", "variable"], "the kinds")
        columns = {len(m.group(1)) + len(m.group(2)) for m in rows}
        same(columns, {len(long_name) + 2}, "every kind starts two past the longest name")
        same(enter(r, ",apropos qqqqqq"), "no bound name contains qqqqqq\n", "nothing found")
        same(enter(r, ",apropos"), "error: usage: ,apropos TEXT\n", "no text")
    finally:
        r.close()


# ---------------------------------------------------------------- records

def records_print_with_field_names(kiln):
    r = start(kiln)
    try:
        enter(r, "(define-record-type point (make-point x y) point? (x point-x) (y point-y set-point-y!))")
        same(enter(r, "(make-point 1 \"a\")"), "#<point x: 1 y: \"a\">\n", "echo in write form")
        same(enter(r, "(list (make-point 1 2) (make-point 'q #\\z))"),
             "(#<point x: 1 y: 2> #<point x: q y: #\\z>)\n", "records inside a list")
        same(enter(r, "(define p (make-point 1 2)) (set-point-y! p '(3 4)) p"), "#<point x: 1 y: (3 4)>\n",
             "after a mutation")
        same(enter(r, "(display (make-point 1 \"a\"))"), "#<point x: 1 y: a>", "display")
        enter(r, "(define-record-type <empty> (make-empty) empty?)")
        same(enter(r, "(make-empty)"), "#<empty>\n", "a record type without fields")
        same(enter(r, ",describe point"), "point: variable\n  value: record type #<record-type point>\n",
             ",describe of the record type")
    finally:
        r.close()


# ---------------------------------------------------------------- error locations

def error_at_the_repl_names_the_entry(kiln):
    r = start(kiln)
    try:
        enter(r, "(define x 1)")
        same(enter(r, "(+ x\n   (car x))"), "<repl-2>:2:4: error: car: argument 1 must be a pair, got 1\n",
             "line 2 of entry 2")
        enter(r, ",describe car")  # commands are not entries
        same(enter(r, "(define v (vector)) (vector-ref v 0)"),
             "<repl-3>:1:21: error: vector-ref: index 0 out of range for a vector of length 0\n",
             "the second form of entry 3")
        same(enter(r, "(error \"my own\" 'x 42)"), "<repl-4>:1:1: error: my own x 42\n", "a raised error")
        same(enter(r, "(+ x 1)"), "2\n", "the session goes on with its definitions")
    finally:
        r.close()


def error_in_loaded_code_names_the_file(kiln):
    r = start(kiln, {
        "f.lisp": ";; helpers\n(define (safe-div a b)\n  (if (= b 0)\n      (error \"safe-div: zero\" a)\n"
                  "      (/ a b)))\n",
        "sub/g.lisp": "(define (first-of x)\n  (car x))\n",
        "bad.lisp": "(define ok 1)\n\n(car ok)\n",
    })
    try:
        same(enter(r, "(load \"f.lisp\")"), "", "(load ...)")
        same(enter(r, "(safe-div 1 0)"), "f.lisp:4:7: error: safe-div: zero 1\n", "an error in a (load)ed procedure")
        same(enter(r, ",bt"), "f.lisp:4:7: error: safe-div: zero 1\n  at safe-div (f.lisp:4:7)\n"
             "  at top level (<repl-2>:1:1)\n", ",bt")
        same(enter(r, ",load sub/g.lisp"), "", ",load")
        same(enter(r, "(define (use y)\n  (first-of y))"), "", "a REPL procedure calling it")
        same(enter(r, "(use 5)"), "sub/g.lisp:2:3: error: car: argument 1 must be a pair, got 5\n",
             "an error in a ,loaded procedure")
        same(enter(r, ",load bad.lisp"), "bad.lisp:3:1: error: car: argument 1 must be a pair, got 1\n",
             "an error while loading")
        same(enter(r, "ok"), "1\n", "what loaded before the error stays")
        # A file that is not there: no location, not even the last error's.
        same(enter(r, "(list (+ ok 1))"), "(2)\n", "an entry that calls")
        same(enter(r, ",load no-such-file.lisp"), "error: cannot open file no-such-file.lisp\n", ",load of no file")
        same(enter(r, "(load \"no-such-file.lisp\")"),
             "<repl-7>:1:1: error: cannot open file no-such-file.lisp\n", "(load ...) of no file")
    finally:
        r.close()


# ---------------------------------------------------------------- Ctrl-C, Ctrl-D

def ctrl_c_interrupts_a_running_loop(kiln):
    r = start(kiln)
    try:
        enter(r, "(define kept 17)")
        r.send("(let loop () (loop))\n")
        r.expect(r"\(loop\)\)\n")
        check(PROMPT not in r.quiet_for(0.3), "the loop returned to the prompt by itself")
        r.send(CTRL_C)
        r.expect(r"interrupted\n")
        r.expect(PROMPT)
        same(enter(r, "(+ kept 1)"), "18\n", "the REPL is alive, definitions intact")
        # A program waiting for a line of input is interrupted as well.
        r.send("(read-line)\n")
        r.expect(r"\(read-line\)\n")
        check(PROMPT not in r.quiet_for(0.3), "(read-line) returned without input")
        r.send(CTRL_C)
        r.expect(r"interrupted\n")
        r.expect(PROMPT)
        same(enter(r, "(+ kept 2)"), "19\n", "alive after interrupting (read-line)")
        # Typed while the entry runs; whether the terminal echoes it depends on
        # when it arrives, so only the result is matched.
        r.send("(string-append (read-line) \"!\")\n")
        r.expect(r"\(read-line\) \"!\"\)\n")
        r.send("hello\n")
        same(r.expect(r"(?s)(.*?)" + re.escape(PROMPT)).group(1).replace("hello\n", "", 1), "\"hello!\"\n",
             "(read-line) still reads")
    finally:
        r.close()


def ctrl_d_exits_cleanly(kiln):
    r = start(kiln)
    try:
        same(enter(r, "(car 1)"), "<repl-1>:1:1: error: car: argument 1 must be a pair, got 1\n", "an error first")
        # Ctrl-D to a program's (read-line) is its end of input, not the REPL's.
        r.send("(read-line)\n")
        r.expect(r"\(read-line\)\n")
        r.quiet_for(0.2)
        r.send(CTRL_D)
        r.expect(r"#<eof>\n")
        r.expect(PROMPT)
        r.send(CTRL_D)
        code = r.wait_exit()
        same(code, 0, "exit status after Ctrl-D")
        same(r.text()[r.pos:], "\n", "what Ctrl-D prints")
    finally:
        r.close()


run_cases([
    bt_shows_each_frame_with_its_location,
    expand_user_macros,
    expand_let_and_cond,
    describe_when_and_cond,
    describe_user_macros,
    apropos_columns_are_aligned,
    records_print_with_field_names,
    error_at_the_repl_names_the_entry,
    error_in_loaded_code_names_the_file,
    ctrl_c_interrupts_a_running_loop,
    ctrl_d_exits_cleanly,
])

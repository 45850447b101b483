// jit_context.h — creating libgccjit contexts with Kiln's options, the CPU level
// they target, and capturing what the back-end prints when a compile fails.
//
// Invariants:
//   * Every kernel context is made by jit_new_context(), so every kernel is
//     compiled with the same flags (jit_flags()), and those flags are part of the
//     on-disk cache key: -O3, -ffp-contract=off (no fused multiply-add: the
//     generated loops must round exactly like runtime/tensor_ops.h) and
//     -march=x86-64-vN for the level the RUNNING CPU supports (libgccjit 12
//     rejects -march=native).
//   * The vector width the code generator uses (jit_vector_doubles()) follows
//     that same level: a 512-bit tile compiled for AVX2 is emulated and very slow.
//   * libgccjit runs the external gcc driver (a child process). Its embedded
//     driver calls exit() on a fatal error such as a missing assembler, which
//     would kill Kiln; the external one reports the failure as an error instead.
//   * The background compile thread (kernel_tiering.h) never touches Lisp values:
//     what it would print goes to a queue the interpreter thread drains
//     (jit_message), and a compile it runs is not tied to Ctrl-C.
#pragma once
#include <libgccjit.h>

#include <functional>
#include <string>
#include <vector>

#include "runtime/eval.h"

namespace kiln {

// 1 (baseline x86-64), 2, 3 or 4, from __builtin_cpu_supports; KILN_JIT_LEVEL=N
// (1..4) lowers it for tests and benchmarks (never raises it past the CPU's).
int jit_cpu_level();
const char *jit_march();   // "x86-64", "x86-64-v2", ...
int jit_vector_doubles();  // doubles per vector register: 8 (v4), 4 (v3), 2
// Compiler flags passed to every kernel context, in order.
const std::vector<std::string> &jit_flags();
// Driver (link) options: -lm, so calls to exp/log/pow bind to the same
// versioned libm symbols Kiln itself calls (an unversioned reference would bind
// to the old SVID-compatible wrappers, whose NaNs differ in sign).
const std::vector<std::string> &jit_link_flags();
// "12.2.0": the libgccjit library actually loaded.
std::string jit_version_string();

// A fresh context with jit_flags() applied and error printing to stderr off
// (errors are collected and reported by the caller).
gcc_jit_context *jit_new_context();
// KILN_JIT_TIME_REPORT=1: every kernel compile adds -ftime-report, and the
// report GCC prints (captured with the compile's stderr) is passed on to stderr.
bool jit_time_report();

// Redirects fd 2 into a temporary file between construction and end(), so the
// driver's own messages (e.g. "cannot execute 'as'") can be quoted in Kiln's
// single warning instead of spilling onto the user's terminal. fd 2 is one per
// process while captures come from two threads (a background compile beside a
// graph-compile), so every capture shares one redirection: the first begins it,
// the last to end restores fd 2, and each returns what was written since it began
// (the other compile's lines too). Nesting order does not matter.
class StderrCapture {
 public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;
  // Ends this capture and returns everything written since it began.
  std::string end();
  bool active() const { return active_; }
  // For an exit under way: writes what this capture holds to the real stderr and
  // leaves fd 2 on the capture (see jit_abandon_compile). write and pread only, so
  // a signal handler may call it.
  void hand_over_for_exit();

 private:
  std::string end_locked();
  bool active_ = false;
  long start_ = 0;  // the file's size when this capture began
};

// For an exit while another thread's capture is active: writes `line` and a
// newline to the real standard error (fd 2 itself is the capture's file).
void jit_write_real_stderr(const std::string &line);

// Points TMPDIR at a directory of this process's own (made at the first compile,
// removed at exit and on the interrupt path), so a compile the process ends under
// leaves nothing in the user's temporary directory. Call once at start-up, before
// any thread exists; without the call compiles use the user's TMPDIR.
void jit_use_private_tmpdir();

// Makes that directory at the first compile. False, with `failure` naming the
// directory and the cause, when it cannot be made (then nothing may be compiled:
// TMPDIR names a directory that is not this process's).
bool jit_make_compile_tmpdir(std::string &failure);

// What TMPDIR held before jit_use_private_tmpdir (null when it was unset), and in
// `changed` whether the process's TMPDIR differs from it: the program's own view
// of its environment (get-environment-variable, a child `kiln test` starts).
const char *user_environment_tmpdir(bool *changed);

// The line of `text` that says what went wrong: the first that names an error,
// else the first non-empty one ("compilation terminated." only when nothing else
// was said). `text` may hold the program's own stderr lines as well.
std::string first_error_line(const std::string &text);

// The reason a context failed: the back-end's captured line naming an error, else
// libgccjit's recorded first error, else whatever the capture held.
std::string jit_failure_reason(gcc_jit_context *ctx, const std::string &captured);

// Runs `work` (a libgccjit compile, which cannot poll for Ctrl-C) on a helper
// thread while this thread waits for it. GCC ends the process with exit(1) on a
// fatal error (e.g. its output file cannot be opened, as when an exit removes the
// compile directory under it): while `work` runs, an exit handler turns that into
// the status the process was already ending with, or else into a clear error
// naming the kernel, with what GCC wrote, and status 70. A Ctrl-C meanwhile cannot stop the
// compile, so it ends the process: the message `error: interrupted while
// compiling kernel NAME` (after restoring stderr from `capture`, which may be
// null) and exit status 130, as an interrupted script (docs/jit.md). `work`
// must not touch Lisp values; `before_exit` (may be empty) removes what the
// abandoned compile leaves behind.
void run_uninterruptible(const std::string &kernel_name, StderrCapture *capture, void (*work)(void *),
                         void *data, const std::function<void()> &before_exit = {});

// Writes one line to Kiln's error port (which flushes standard output first, so
// merged output keeps the order of events, docs/cli.md). Used for every JIT warning
// and KILN_JIT_LOG line. On the background compile thread the line is queued
// instead, and written by the next jit_drain_messages() on the interpreter thread.
void jit_message(const std::string &line);
// Writes the queued lines (interpreter thread only); cheap when there are none.
void jit_drain_messages();

// Marks the calling thread as the background compile thread: jit_message queues,
// run_uninterruptible runs the work inline, and what it registers as
// `before_exit` is kept for jit_abandon_compile().
void jit_mark_background_thread();
bool jit_on_background_thread();
// check_interrupt() for code both threads run (planning a kernel): the
// interpreter thread stops with `interrupted`; the background thread, which
// nothing waits for, carries on and leaves the Ctrl-C to the interpreter.
inline void check_interrupt_unless_background() {
  if (g_interrupt) [[unlikely]]
    if (!jit_on_background_thread()) throw_interrupt();
}
// Runs the clean-up of the background compile in flight, if any (the process is
// about to end under it with `status`: its partial cache file and the compile
// directory are removed, and what its stderr capture holds, the interpreter
// thread's last messages, is written to stderr). fd 2 stays on the capture
// afterwards, so call it last, just before _Exit(status).
void jit_abandon_compile(int status);

// While the background thread compiles, fd 2 is redirected for the driver's
// messages, so anything the interpreter thread wrote meanwhile was captured too:
// this writes it back to stderr, except the line quoted as `reason` (empty on
// success) and the driver's "compilation terminated.". An exit between the end of
// the capture and this call writes the held text itself (jit_abandon_compile).
void jit_pass_through(const std::string &captured, const std::string &reason);

// Tells the collector not to scan libgccjit's data and bss (~3.5 MB of GCC's
// global state, which never points into the Lisp heap) as roots at every
// collection: that scan dominated small-tensor loops. Idempotent.
void jit_exclude_from_gc_roots();

// Set by the kernel module (`kiln --jit-check`): compiles and runs a tiny kernel,
// prints what works, returns the exit status.
int jit_check_main();

}  // namespace kiln

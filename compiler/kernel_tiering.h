// kernel_tiering.h — compiling kernels on a background thread (SPEC §17, docs/jit.md
// "Tiered execution").
//
// Invariants:
//   * One background thread compiles queued kernels in order, one at a time. It
//     is registered with the collector but runs entirely inside GC_do_blocking:
//     it reads only C++ memory the kernel owns and never frees (graph, plan), and
//     never a Lisp value. It blocks SIGINT, so Ctrl-C always reaches the
//     interpreter thread, and nothing is interrupted under it.
//   * A job is written by the background thread and published with a release
//     store of `done`; the interpreter thread reads it only after an acquire load
//     that saw true. Jobs are never freed (a kernel keeps pointing at its own).
//   * Queuing never waits for a compile. When the process ends while a compile
//     runs, jit_exit_now_if_compiling() removes its partial cache file and ends
//     the process at once rather than waiting or running destructors under it.
#pragma once
#include <libgccjit.h>

#include <atomic>
#include <string>

#include "compiler/kernel_cache.h"

namespace kiln {

struct BackgroundCompile {
  std::string name, key_text;
  void (*build)(gcc_jit_context *, void *);
  void *data;  // owned by the caller, alive until `done` (and after)
  CompiledCode code;
  std::atomic<bool> done{false};
};

// KILN_JIT=sync: jit waits for each compile (benchmarks, tests that inspect
// kernels); unset or "background": tiered. Anything else is a warning, once,
// and the default.
bool jit_sync_mode();

// Queues the compile; the job is returned at once (never freed).
BackgroundCompile *compile_in_background(const std::string &name, const std::string &key_text,
                                         void (*build)(gcc_jit_context *, void *), void *data);

// Waits until `job` is done, answering Ctrl-C with the usual interrupt (the
// compile goes on in the background).
void wait_for_compile(BackgroundCompile *job);

// At the end of the program (main): when a background compile is running or
// queued, flushes output and ends the process now with `status`.
void jit_exit_now_if_compiling(int status);

}  // namespace kiln

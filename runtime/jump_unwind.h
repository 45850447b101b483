// jump_unwind.h — leaving a deep recursion by a jump instead of frame by frame.
//
// Why it exists: the C++ unwinder costs about two microseconds per Lisp frame
// (three C++ frames each, walked twice, 71% of it in libgcc's FDE lookups and
// CFI). A `stack overflow` at the bottom of a stack of gigabytes, or Ctrl-C
// there, would take tens of seconds to reach the top level that way; the
// interpreter's default stack was capped at 512 MiB for that reason
// (benchmarks/RESULTS.md, "Deep recursion").
//
// How: the places that act on an exception passing through them run their body
// at a JumpPoint, a setjmp target linked into g_jump_top: the top-level form's
// evaluation (eval_toplevel_here), guard's body, dynamic-wind's and
// parameterize's body. run_closure catches LispError (once its backtrace has
// its ten frames: those are noted by the normal unwinding), InterruptThrow and
// ExitThrow; if no ReentryBarrier went up since the innermost point
// (can_jump_to_point), it ends its catch block holding the exception in an
// exception_ptr and jumps to that point, which restores the globals the
// skipped frames would have restored and rethrows there. Whatever the point
// does next (guard's clauses, the after-thunk, reporting the error) is
// ordinary C++ unwinding over a few frames.
//
// Invariants (the same reasoning lets a continuation's escape jump over the
// same frames: continuation.cpp, invoke_continuation):
// - every frame between run_closure's catch and the point is the evaluator's
//   or a builtin's that calls Lisp without a barrier: they hold no C++ state
//   to free, and their destructors only restore g_handlers, g_site,
//   g_callcc_top, g_env and the current ports, which the point saved and
//   restores (g_site to what the raise left, as unwinding leaves it);
// - a C++ frame that holds C++ state, or catches to do something, and calls
//   Lisp does so under a ReentryBarrier (apply_proc, load, library loading,
//   guard clauses, error handlers) or is a JumpPoint itself (guard,
//   dynamic-wind, parameterize, eval_toplevel_here, hence also eval with an
//   environment); a barrier pushed since the innermost point forbids the jump,
//   and the exception then unwinds frame by frame as before;
// - a point is popped by its own frame however that frame ends; a continuation
//   that jumps over points restores g_jump_top from its capture (`arrive`).
#pragma once
#include <csetjmp>

#include "runtime/value.h"

namespace kiln {

struct ReentryBarrier;
struct CallCcLink;
struct TopEnv;

struct JumpPoint {
  JumpPoint *prev;
  ReentryBarrier *barrier;  // g_barrier when the point was set
  Value handlers;           // g_handlers (on the stack: scanned)
  Value in_port, out_port;
  CallCcLink *callcc;
  TopEnv *env;
  jmp_buf regs;
};
extern JumpPoint *g_jump_top;

// Runs body(arg) at a new point; returns its value. An exception jumped to the
// point is rethrown from here, so the caller's catch sees it as from body.
Value run_at_jump_point(Value (*body)(void *), void *arg);

// Whether an exception caught in an evaluator frame may jump to the innermost
// point: there is one, and no barrier went up since it was set.
bool can_jump_to_point();
// In a catch block: keeps the exception being caught for jump_to_point.
[[gnu::cold]] void keep_exception_for_jump();
// After that catch block has ended: jumps to the innermost point, which
// rethrows the kept exception.
[[noreturn, gnu::cold]] void jump_to_point();

}  // namespace kiln

// continuation.h — first-class, re-entrant continuations by copying the C stack.
//
// How (docs/continuations.md has the whole story and its costs):
// - The outermost eval_toplevel runs its form under a Prompt (run_under_prompt).
//   The prompt's base is a fixed stack address: every frame the form's
//   evaluation pushes lies below it, and the drivers (file loading, the REPL)
//   call eval_toplevel from the same depth for each form.
// - call/cc copies the stack between its own frame and the prompt's base into
//   scanned GC memory, with the registers (setjmp), and records the dynamic
//   state: the wind list, the handler stack, the current ports, the stack limit,
//   the top-level environment, the innermost jump point (jump_unwind.h). When an enclosing call/cc is still
//   running and has a copy, the new capture copies only up to that call/cc's frame and shares the enclosing
//   copy for the rest (the `parent` chain), so captures at every level of a deep recursion cost the new
//   frames, not the whole depth.
// - Calling a continuation whose call/cc frame is still on the stack is an
//   escape, a C++ throw as before (ContinuationThrow). Calling one whose frame
//   is gone is a re-entry: the wind list is walked (after-thunks out, before-
//   thunks in), a ReentryThrow unwinds the current computation to the prompt
//   (running every C++ destructor on the way), and the prompt copies the saved
//   stack back to the same addresses and longjmps into it.
//
// Invariants:
// - While a call/cc frame is running (its CallCcLink is on the chain), the
//   frames above it, [link.frame_top, base), stay as they were at its capture:
//   they are suspended in calls, and the evaluator's frames are written only
//   by their own code (a Lisp frame that a closure or set! could reach from
//   deeper code lives in the heap). That is what lets a capture share them.
// - Every frame in a copied segment is safe to resume a second time: the
//   evaluator's frames hold only Lisp values, nodes and stack frames of Lisp
//   procedures. A builtin that calls back into Lisp while it holds C++ state
//   (a std::vector, a port being read, a caught exception) does so under a
//   ReentryBarrier (apply_proc pushes one, as do load and library loading); a
//   continuation captured while any barrier is active is escape-only, and
//   re-entering it is the error
//   "continuation: cannot re-enter ... (captured inside NAME)".
// - No Lisp code runs inside a C++ catch block outside a barrier (the C++
//   runtime keeps caught exceptions in per-thread state a stack copy cannot
//   restore): guard handlers and dynamic-wind after-thunks run after their
//   catch blocks end.
// - g_winders is the wind list: a Lisp list, innermost first, of (before .
//   after) entries of dynamic-wind, or (#f . swaps) entries of parameterize,
//   whose swaps ((param . value) ...) exchange values on entry and exit. Every
//   frame that pushes an entry pops it however it exits; the after-thunks of
//   escapes and re-entries run in wind_to, before the throw.
#pragma once
#include <csetjmp>
#include <cstdint>

#include "runtime/object.h"

namespace kiln {

struct Node;
struct TopEnv;
struct ContinuationState;
struct JumpPoint;

extern Value g_winders;  // GC root: the wind list (see above)

// Counts re-entries (a saved stack written back). A builtin that calls Lisp
// without a barrier and fills a result in GC memory (map's list, vector-map's
// vector) compares it before each store: a change means its frame may be a
// resumed copy whose result an earlier return already handed out, so it copies
// the result first (R7RS 6.10: earlier returns are not mutated).
extern uint64_t g_reentry_epoch;
// Counts captures that can be re-entered (a stack copy taken). A builtin that
// would reuse a buffer an earlier step read (sort's merge passes) does so only
// if none was taken since it began: otherwise a resumed step needs it intact.
extern uint64_t g_resumable_captures;

// Exchanges each parameter's value with the one saved in its (parameter . value)
// cell of SWAPS: entering and leaving a parameterize entry are the same swap.
void swap_parameters(Value swaps);

// A builtin's call back into Lisp while it holds C++ state. While one is on the
// stack, call/cc captures an escape-only continuation.
struct ReentryBarrier {
  ReentryBarrier *prev;
  Node *site;        // the call being evaluated when the barrier went up
  const char *what;  // what it is; nullptr or ending in a space: completed by the
                     // name of the builtin called at `site`
};
extern ReentryBarrier *g_barrier;

class BarrierScope {
 public:
  explicit BarrierScope(Node *site, const char *what = nullptr) : b_{g_barrier, site, what} {
    g_barrier = &b_;
  }
  ~BarrierScope() { g_barrier = b_.prev; }
  BarrierScope(const BarrierScope &) = delete;
  BarrierScope &operator=(const BarrierScope &) = delete;

 private:
  ReentryBarrier b_;
};

// A live call/cc frame; the chain tells whether a continuation is an escape.
struct CallCcLink {
  CallCcLink *prev;
  uint64_t id;
  uintptr_t frame_top;       // the call/cc frame's top: its caller's frames lie above
  ContinuationState *state;  // its capture, once taken (nullptr before)
};
extern CallCcLink *g_callcc_top;

// Everything a continuation saves (GC memory, scanned: registers and the stack
// copy hold Lisp pointers).
struct ContinuationState {
  jmp_buf regs;                       // resumes the copy (capture_stack)
  jmp_buf here;                       // resumes the live call/cc frame, for an escape that needs no unwinding
  ReentryBarrier *barrier = nullptr;  // g_barrier at capture
  uintptr_t low = 0, base = 0;        // the saved stack [low, base)
  uintptr_t top = 0;                  // this capture's own copy holds [low, top) ...
  ContinuationState *parent = nullptr;  // ... and parent's chain [top, base) (nullptr: top == base)
  void *stack = nullptr;                // the copy; nullptr for an escape-only continuation
  CallCcLink *link = nullptr;           // the call/cc frame's own link (in the segment)
  Value winders = NIL, handlers = NIL, in_port = NOVALUE, out_port = NOVALUE;
  uintptr_t stack_limit = 0;
  JumpPoint *jump_top = nullptr;  // g_jump_top at capture (jump_unwind.h)
  TopEnv *env = nullptr;          // g_env at capture (eval with an environment changes it)
  bool env_is_program = false;    // env is the program's, not created yet at capture
  Node *site = nullptr;           // g_site at capture
  Node *barrier_site = nullptr;   // why escape-only: the innermost barrier
  const char *barrier_what = nullptr;
  bool under_prompt = false;  // false: captured outside any top-level form
  bool escape_only = false;   // call-with-escape-continuation: never copied
};

// Runs one top-level form under the prompt (called by the outermost eval_toplevel).
Value run_under_prompt(Value form, Value (*eval_form)(Value));
bool prompt_active();

// call/cc: captures the current continuation into k and calls f with it.
Value call_with_current_continuation(Value f, bool escape_only);
// Calling a continuation (apply_proc's T_CONTINUATION case).
[[noreturn]] void invoke_continuation(Value k, int argc, Value *argv);

// Runs after-thunks out of the current wind list and before-thunks into
// `target`, leaving g_winders == target (R7RS dynamic-wind order).
void wind_to(Value target);

// Bytes a capture right here would copy (0 outside a prompt): for tests.
uintptr_t stack_depth_below_prompt();

}  // namespace kiln

// eval.cpp — the evaluator's entry (eval_toplevel: expand, analyse, run one
// form) and running analysed nodes: calls, frames, tail calls, errors.
//
// Invariant: see eval_internal.h (analysed once, tail calls through the
// TAILCALL marker, leaf frames on the C++ stack). The thread that runs this
// code has g_stack_limit set (big_stack.h).
#include "runtime/eval.h"

#include <algorithm>
#include <new>

#include "runtime/analyze_internal.h"
#include "runtime/big_stack.h"
#include "runtime/continuation.h"
#include "runtime/eval_internal.h"
#include "runtime/handlers.h"
#include "runtime/jump_unwind.h"
#include "runtime/printer.h"
#include "runtime/srcloc.h"

namespace kiln {

TailState g_tail;
volatile std::sig_atomic_t g_interrupt = 0;
uintptr_t g_stack_limit = 0;

// The outermost top-level form runs under the prompt that continuations are
// copied up to (continuation.h); forms nested in it (a top-level begin, eval)
// run inside that prompt's segment.
static Value eval_toplevel_here(Value form);

Value eval_toplevel(Value form) {
  if (!prompt_active()) {
    // Between top-level forms nothing is live below this frame: what a deep
    // recursion touched goes back to the system (big_stack.h).
    struct ReleaseStack {
      ~ReleaseStack() { release_deep_stack(); }
    } release;
    return run_under_prompt(form, eval_toplevel_here);
  }
  return eval_toplevel_here(form);
}

static Value eval_toplevel_here(Value form) {
  // The site a form's evaluation leaves in g_site must not outlive it: an error
  // raised afterwards outside any form (a -l file that cannot be opened, the
  // REPL's ,load) would otherwise be reported at that old form's location.
  struct RestoreSite {
    Node *saved;
    ~RestoreSite() { g_site = saved; }
  } restore{g_site};
  // Expand top-level macros first so a `begin` they produce is spliced and
  // each of its forms is defined before the next is analysed.
  for (;;) {
    Value e = macro_step(form, nullptr);
    if (e == NOVALUE) break;
    form = e;
  }
  if (special_of(form, nullptr) == SF_BEGIN) {
    if (list_length(cdr(form)) < 0) bad_syntax(form, "begin");
    Value r = UNSPEC;
    for (Value p = cdr(form); is_pair(p); p = cdr(p)) r = eval_toplevel_here(car(p));
    return r;
  }
  if (special_of(form, nullptr) == SF_DEFINE_RECORD_TYPE)
    return eval_toplevel_here(expand_record_type_definition(form));
  g_site = nullptr;
  Node *n = analyze(form, nullptr, false);
  try {
    // A jump point: an error, Ctrl-C or exit from deep below comes here by a
    // jump (jump_unwind.h), rethrown inside this try.
    return run_at_jump_point([](void *n) { return static_cast<Node *>(n)->eval(nullptr); }, n);
  } catch (LispError &e) {
    if (!e.loc.known()) e.loc = loc_of(form);
    throw;
  }
}

Value closure_name(Value closure) { return as<Closure>(closure)->lam->name; }

static std::string proc_display_name(Closure *c) {
  Value n = c->lam->name;
  return is_symbol(n) ? std::string(symbol_name(n)) : std::string("#<procedure>");
}

void not_a_procedure(Value f) { throw_errorf("not a procedure: {}", error_value_string(f)); }

void stack_overflow() {
  // Leave headroom so the handler machinery itself can run.
  uintptr_t saved = g_stack_limit;
  g_stack_limit = saved > (256u << 10) ? saved - (256u << 10) : 0;
  struct Restore {
    uintptr_t v;
    ~Restore() { g_stack_limit = v; }
  } r{saved};
  throw_error("stack overflow");
}

void throw_interrupt() {
  g_interrupt = 0;
  throw InterruptThrow{};
}
static inline void check_interrupt_inline() { check_interrupt(); }

// Overflow as run_closure enters a frame: the frame has no call of its own in
// progress, so it stays out of the backtrace, which starts at its caller. The
// first frame note_unwound_frame sees for this error is that frame's.
static thread_local const LispError *t_raised_entering_frame = nullptr;
[[noreturn, gnu::cold]] static void overflow_entering_frame() {
  try {
    stack_overflow();
  } catch (LispError &e) {
    t_raised_entering_frame = &e;
    throw;
  }
}

static inline void check_stack_and_interrupt() {
  if (stack_exhausted()) [[unlikely]]
    overflow_entering_frame();
  check_interrupt_inline();
}

// Picks the case-lambda variant accepting argc arguments, or raises the arity error.
static Closure *select_case(Closure *c, int argc) {
  for (Closure *k = c;;) {
    Lambda *L = k->lam;
    if (argc == L->nreq || (L->rest && argc >= L->nreq)) return k;
    if (!is_closure(k->next_case)) break;
    k = as<Closure>(k->next_case);
  }
  int lo = 1 << 30, hi = 0;
  for (Value k = from_ptr(c); is_closure(k); k = as<Closure>(k)->next_case) {
    Lambda *L = as<Closure>(k)->lam;
    lo = std::min(lo, L->nreq);
    hi = (hi < 0 || L->rest) ? -1 : std::max(hi, L->nreq);
  }
  arity_error(proc_display_name(c), lo, hi, argc);
}

void bind_args(Closure *c, Frame *f, int argc, const Value *argv) {
  Lambda *L = c->lam;
  f->parent = c->env;
  int i = 0;
  for (; i < L->nreq; i++) f->slots[i] = argv[i];
  if (L->rest) {
    Value r = NIL;
    for (int j = argc - 1; j >= L->nreq; j--) r = cons(argv[j], r);
    f->slots[i++] = r;
  }
  for (; i < L->frame_size; i++) f->slots[i] = UNINIT;
}

static inline Frame *heap_frame(int size) {
  return static_cast<Frame *>(gc_alloc(sizeof(Frame) + sizeof(Value) * size_t(size)));
}

// The frame run_closure keeps for tail-called leaf lambdas. It starts zeroed:
// the collector scans it like any stack word, and words left there by older
// calls would otherwise keep what they pointed to alive. Zeroed with explicit
// 16-byte stores, which cost less than what `= {}` compiles to
// (docs/performance.md, "Evaluator").
struct alignas(16) LocalFrame {
  Frame *parent;
  Value slots[kLocalFrameMax + 1];  // + 1: a whole number of 16-byte stores
};
static_assert(sizeof(LocalFrame) % 16 == 0);

static inline void zero_local_frame(LocalFrame &f) {
  typedef long long Words2 __attribute__((vector_size(16)));
  auto *p = reinterpret_cast<Words2 *>(&f);
  const Words2 zero = {0, 0};
  static_assert(sizeof(LocalFrame) == 7 * 16);
  p[0] = zero;
  p[1] = zero;
  p[2] = zero;
  p[3] = zero;
  p[4] = zero;
  p[5] = zero;
  p[6] = zero;
}

// A LispError unwinding through a run_closure frame adds the frame to its
// backtrace: the first ten frames by name, each at the call its callee was
// entered from, and `pending` ends at the call that entered the outermost.
// Out of malloc memory the backtrace loses the line rather than the error
// becoming a std::bad_alloc. Returns whether the error may go on by a jump
// (jump_unwind.h): once the backtrace is full, the frames above add nothing
// but `pending`, which a jump leaves unknown (the REPL then names the
// top-level form).
[[gnu::cold]] static bool note_unwound_frame(LispError &e, Closure *c, Node *entry_site) noexcept {
  if (&e == t_raised_entering_frame) {
    t_raised_entering_frame = nullptr;
    return false;
  }
  try {
    if (e.trace.size() < 10) e.trace.push_back(TraceEntry{proc_display_name(c), e.pending});
  } catch (...) {
  }
  e.pending = entry_site ? entry_site->loc : SrcLoc{};
  if (e.trace.size() < 10 || !can_jump_to_point()) return false;
  e.pending = SrcLoc{};
  return true;
}

Value run_closure(Closure *c, Frame *f) {
  LocalFrame local;
  zero_local_frame(local);
  Node *const entry_site = g_site;  // the call, in our caller's body, that entered this frame
  // Catches, not cleanups, so the C++ runtime's search for a handler ends at
  // the nearest Lisp frame instead of walking every frame up to the top level
  // first; each frame passes the exception on (error.h, Unwinding) until it may
  // jump. On return none of this runs. A continuation's longjmp skipping it
  // skips nothing needed.
  try {
    for (;;) {
      check_stack_and_interrupt();
      Value r = c->lam->body->eval(f);
      if (r != TAILCALL) return r;
      c = g_tail.closure;
      if (g_tail.frame) {
        f = g_tail.frame;
      } else {
        f = reinterpret_cast<Frame *>(&local);
        f->parent = c->env;
        int n = g_tail.argc, size = c->lam->frame_size;
        for (int i = 0; i < n; i++) f->slots[i] = g_tail.args[i];
        for (int i = n; i < size; i++) f->slots[i] = UNINIT;
      }
    }
  } catch (LispError &e) {
    if (!note_unwound_frame(e, c, entry_site)) throw;
    keep_exception_for_jump();
  } catch (InterruptThrow &) {
    if (!can_jump_to_point()) throw;
    keep_exception_for_jump();
  } catch (ExitThrow &) {
    if (!can_jump_to_point()) throw;
    keep_exception_for_jump();
  }
  // After the catch block has ended: no caught exception is left in the C++
  // runtime's per-thread state (continuation.h's rule for jumps).
  jump_to_point();
}

Value apply_proc(Value f, int argc, Value *argv) {
  // The builtin calling back may hold C++ state a stack copy cannot resume.
  BarrierScope barrier(g_site);
  return call_procedure(f, argc, argv);
}

Value call_procedure(Value f, int argc, Value *argv) {
  // Builtins that call a procedure per element ((for-each car l), sort) run
  // no evaluator loop of their own to poll for Ctrl-C: this is their poll.
  check_interrupt();
  if (is_closure(f)) {
    Closure *c = select_case(as<Closure>(f), argc);
    Lambda *L = c->lam;
    Frame *nf = L->leaf ? static_cast<Frame *>(alloca(sizeof(Frame) + sizeof(Value) * size_t(L->frame_size)))
                        : heap_frame(L->frame_size);
    bind_args(c, nf, argc, argv);
    // A builtin may call several closures in turn (map): each one's frame must
    // see the builtin's call site, not what the previous callee left in g_site.
    Node *site = g_site;
    Value r = run_closure(c, nf);
    g_site = site;
    return r;
  }
  if (!is_ptr(f)) not_a_procedure(f);
  switch (hdr(f)->type) {
  case T_BUILTIN: {
    Builtin *b = as<Builtin>(f);
    if (argc < b->min_args || (b->max_args >= 0 && argc > b->max_args))
      arity_error(b->name, b->min_args, b->max_args, argc);
    Value r = b->fn(argc, argv);
    return r == TAILCALL ? finish_tail(r) : r;
  }
  case T_CONTINUATION: invoke_continuation(f, argc, argv);
  case T_PARAMETER:
    if (argc != 0) arity_error("parameter", 0, 0, argc);
    return as<Parameter>(f)->value;
  default:
    if (auto ap = g_type_hooks[hdr(f)->type].apply) return ap(f, argc, argv);
    not_a_procedure(f);
  }
}

Value tail_call_to(Value f, int argc, Value *argv) {
  if (!is_closure(f)) return call_procedure(f, argc, argv);
  Closure *c = select_case(as<Closure>(f), argc);
  Lambda *L = c->lam;
  if (L->leaf && !L->rest && L->frame_size <= kLocalFrameMax) {
    for (int i = 0; i < argc; i++) g_tail.args[i] = argv[i];
    g_tail.argc = argc;
    g_tail.frame = nullptr;
  } else {
    g_tail.frame = heap_frame(L->frame_size);
    bind_args(c, g_tail.frame, argc, argv);
  }
  g_tail.closure = c;
  return TAILCALL;
}

Value make_values(int n, const Value *items) {
  if (n == 1) return items[0];
  MultipleValues *mv = alloc_obj<MultipleValues>(T_VALUES, sizeof(Value) * size_t(n));
  mv->n = n;
  for (int i = 0; i < n; i++) mv->items[i] = items[i];
  return from_ptr(mv);
}

bool is_values(Value v) { return has_type(v, T_VALUES); }

}  // namespace kiln

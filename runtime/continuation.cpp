// continuation.cpp — capture, escape and re-entry of continuations; the
// top-level prompt; the wind list. See continuation.h for the design and its
// invariants, docs/continuations.md for costs and limits.
#include "runtime/continuation.h"

#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "runtime/args.h"
#include "runtime/eval_internal.h"
#include "runtime/gc.h"
#include "runtime/handlers.h"
#include "runtime/jump_unwind.h"
#include "runtime/library.h"
#include "runtime/port.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace kiln {

Value g_winders = NIL;
ReentryBarrier *g_barrier = nullptr;
CallCcLink *g_callcc_top = nullptr;

// The continuation a ReentryThrow is carrying to the prompt (a GC root: the
// exception object itself lives in malloc memory the collector does not see).
static Value g_reentry_target = NOVALUE;
uint64_t g_reentry_epoch = 0;
uint64_t g_resumable_captures = 0;

// Below the stack pointer, leaf functions may use 128 bytes (the x86-64 red
// zone) without moving it; copying them too costs nothing.
constexpr uintptr_t kBelowStackPointer = 128;
// Room between the restoring function's own frame and the region it rewrites.
constexpr uintptr_t kRestoreMargin = 4096;

static inline uintptr_t stack_pointer() {
  uintptr_t sp;
#if defined(__x86_64__)
  asm volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  asm volatile("mov %0, sp" : "=r"(sp));
#else
  sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) - 1024;
#endif
  return sp;
}

// The copies read and write other frames' memory, which AddressSanitizer keeps
// poisoned (redzones around locals): they must not be instrumented, and must
// not go through the interceptor behind memcpy.
__attribute__((no_sanitize("address"), noinline)) static void copy_stack_words(uintptr_t *dst,
                                                                               const uintptr_t *src,
                                                                               size_t words) {
#if defined(__SANITIZE_ADDRESS__)
  for (size_t i = 0; i < words; i++) reinterpret_cast<volatile uintptr_t *>(dst)[i] = src[i];
#else
  std::memcpy(dst, src, words * sizeof(uintptr_t));
#endif
}

// ---- the prompt ------------------------------------------------------------

struct Prompt {
  jmp_buf exit;        // where every evaluation under the prompt ends
  uintptr_t base = 0;  // the top of every copied segment (prompt_body's frame top)
  Value result = NOVALUE;
  Value reentering = NOVALUE;  // the continuation to reinstate, while it is done
  std::exception_ptr error;
};
static Prompt *g_prompt = nullptr;

bool prompt_active() { return g_prompt != nullptr; }

// Never returns: hands the form's value, its exception or a pending re-entry to
// whichever prompt is current when it ends (a reinstated segment may have been
// captured under an earlier prompt at the same address).
[[noreturn]] __attribute__((noinline)) static void prompt_body(Value form, Value (*eval_form)(Value)) {
  g_prompt->base = reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) + 2 * sizeof(void *);
  Value result = NOVALUE;
  bool reenter = false;
  try {
    result = eval_form(form);
  } catch (ReentryThrow &) {
    reenter = true;
  } catch (...) {
    g_prompt->error = std::current_exception();
  }
  Prompt *p = g_prompt;
  p->result = result;
  if (reenter) {
    p->reentering = g_reentry_target;
    g_reentry_target = NOVALUE;
  }
  longjmp(p->exit, 1);
}

[[noreturn]] static void reinstate(ContinuationState *s);

Value run_under_prompt(Value form, Value (*eval_form)(Value)) {
  Prompt p;
  ReentryBarrier *saved_barrier = g_barrier;
  Value saved_handlers = g_handlers, saved_winders = g_winders;
  CallCcLink *saved_callcc = g_callcc_top;
  JumpPoint *saved_jump_top = g_jump_top;
  g_barrier = nullptr;
  g_prompt = &p;
  if (setjmp(p.exit) == 0) prompt_body(form, eval_form);
  // Here when the form's evaluation has ended: normally, by a throw, or to
  // reinstate a continuation (then the reinstated copy ends here again).
  Prompt *q = g_prompt;
  if (q->reentering != NOVALUE) {
    Value k = q->reentering;
    q->reentering = NOVALUE;
    q->result = k;  // keeps it alive on this frame, above the rewritten region
    reinstate(static_cast<ContinuationState *>(as<Continuation>(k)->state));
  }
  g_prompt = nullptr;
  g_barrier = saved_barrier;
  g_handlers = saved_handlers;
  g_winders = saved_winders;
  g_callcc_top = saved_callcc;
  g_jump_top = saved_jump_top;
  if (q->error) {
    std::exception_ptr e = q->error;
    q->error = nullptr;
    std::rethrow_exception(e);
  }
  return q->result;
}

uintptr_t stack_depth_below_prompt() { return g_prompt ? g_prompt->base - stack_pointer() : 0; }

// ---- capture and reinstatement ---------------------------------------------

// Returns 0 after copying the stack from here to the prompt's base, and 1 when
// the copy has been reinstated and control jumps back in here.
__attribute__((noinline)) static int capture_stack(ContinuationState *s) {
  // Callee-saved registers may hold the callers' Lisp values, and jmp_buf keeps
  // some of them mangled (glibc's pointer guard): spilled into this frame, they
  // are in the copy, where the collector sees them.
  __builtin_unwind_init();
  if (setjmp(s->regs)) return 1;
  uintptr_t low = (stack_pointer() - kBelowStackPointer) & ~uintptr_t(15);
  size_t bytes = s->top - low;
  // Scanned: the frames hold Lisp values, and so may the saved registers.
  auto *copy = static_cast<uintptr_t *>(gc_alloc_unzeroed(bytes));
  copy_stack_words(copy, reinterpret_cast<const uintptr_t *>(low), bytes / sizeof(uintptr_t));
  // Below the stack pointer lies whatever earlier, deeper calls left: often the
  // previous capture's own pointers, which would chain every copy to the one
  // before it and keep them all from the collector.
  std::memset(copy, 0, kBelowStackPointer);
  s->low = low;
  s->stack = copy;
  return 0;
}

[[noreturn]] __attribute__((noinline, no_sanitize("address"))) static void copy_back_and_jump(
    ContinuationState *s) {
  // Each capture of the chain gives its part: s its own [low, top), then each
  // parent the rest of its copy above the part already written.
  uintptr_t from = s->low;
  for (ContinuationState *p = s; p; p = p->parent) {
    const auto *src = static_cast<const uintptr_t *>(p->stack) + (from - p->low) / sizeof(uintptr_t);
    copy_stack_words(reinterpret_cast<uintptr_t *>(from), src, (p->top - from) / sizeof(uintptr_t));
    from = p->top;
  }
#if defined(__SANITIZE_ADDRESS__)
  // The frames being resumed expect their own redzones, not whatever the
  // frames that last used these addresses left in the shadow memory.
  __asan_unpoison_memory_region(reinterpret_cast<void *>(s->low), s->base - s->low);
#endif
  g_reentry_epoch++;
  longjmp(s->regs, 1);
}

// Moves this thread's stack pointer below the saved region, so that rewriting
// it cannot clobber the frame doing the rewriting, then rewrites and jumps.
[[noreturn]] __attribute__((noinline)) static void reinstate(ContinuationState *s) {
  uintptr_t sp = stack_pointer();
  uintptr_t want = s->low - kRestoreMargin;
  if (sp > want) {
    auto *pad = static_cast<volatile char *>(alloca(sp - want));
    pad[0] = 0;
    asm volatile("" : : "r"(pad) : "memory");
  }
  copy_back_and_jump(s);
}

// Bytes below the stack pointer cleared when an escape lands (see scrub_below).
constexpr size_t kScrubAfterEscape = 4096;

// Clears `bytes` of the dead stack below the caller's frame. An escape abandons
// the frames below its target without unwinding them; the next frames pushed
// there would inherit their words in every slot they do not write, a later
// capture would copy those stale words, and the collector would follow them to
// the abandoned computation's continuations and their copies, and so on back
// in time. Clearing the top of the dead region after each escape halved the
// memory `ctak 22 12 6` kept and its time (docs/continuations.md).
__attribute__((noinline, no_sanitize("address"))) static void scrub_below(size_t bytes) {
  auto *p = static_cast<char *>(alloca(bytes));
  std::memset(p, 0, bytes);
  asm volatile("" : : "r"(p) : "memory");
}

// ---- the wind list ---------------------------------------------------------

void swap_parameters(Value swaps) {
  for (Value p = swaps; is_pair(p); p = cdr(p)) {
    Value s = car(p);
    Parameter *param = as<Parameter>(car(s));
    Value v = param->value;
    param->value = cdr(s);
    as<Pair>(s)->cdr = v;
  }
}

static void enter_wind(Value entry) {
  if (car(entry) == FALSE_V) swap_parameters(cdr(entry));
  else call_procedure(car(entry), 0, nullptr);
}

static void exit_wind(Value entry) {
  if (car(entry) == FALSE_V) swap_parameters(cdr(entry));
  else call_procedure(cdr(entry), 0, nullptr);
}

void wind_to(Value target) {
  Value a = g_winders, b = target;
  int64_t na = list_length(a), nb = list_length(b);
  for (; na > nb; na--) a = cdr(a);
  for (; nb > na; nb--) b = cdr(b);
  while (a != b) {
    a = cdr(a);
    b = cdr(b);
  }
  Value common = a;
  // Out, innermost first; each after-thunk sees the wind list outside it.
  while (g_winders != common && is_pair(g_winders)) {
    Value entry = car(g_winders);
    g_winders = cdr(g_winders);
    exit_wind(entry);
  }
  // In, outermost first; each before-thunk likewise.
  Value path = NIL;
  for (Value t = target; t != common && is_pair(t); t = cdr(t)) path = cons(t, path);
  for (; is_pair(path); path = cdr(path)) {
    Value t = car(path);
    enter_wind(car(t));
    g_winders = t;
  }
}

// ---- call/cc ---------------------------------------------------------------

static ContinuationState *state_of(Value k) {
  return static_cast<ContinuationState *>(as<Continuation>(k)->state);
}

// Where control arrives from a jump: the dynamic state becomes the capture's
// (wind_to has already run the before-thunks and left g_winders in place).
static void arrive(ContinuationState *s) {
  g_winders = s->winders;
  g_handlers = s->handlers;
  set_current_input_port(s->in_port);
  set_current_output_port(s->out_port);
  g_stack_limit = s->stack_limit;
  // eval with an environment switches g_env around its form and restores it
  // on return or throw, not on a jump. The program's environment may have
  // been created (by its first import) since the capture.
  g_env = s->env_is_program ? program_env() : s->env;
  g_site = s->site;
  g_barrier = s->barrier;
  g_callcc_top = s->link;
  g_jump_top = s->jump_top;
}

Value call_with_current_continuation(Value f, bool escape_only) {
  static uint64_t next_id = 0;
  Continuation *k = alloc_obj<Continuation>(T_CONTINUATION);
  auto *s = new (gc_alloc(sizeof(ContinuationState))) ContinuationState();
  k->id = ++next_id;
  k->state = s;
  Value kv = from_ptr(k);
  s->winders = g_winders;
  s->handlers = g_handlers;
  s->in_port = current_input_port();
  s->out_port = current_output_port();
  s->stack_limit = g_stack_limit;
  s->jump_top = g_jump_top;
  s->env = g_env;
  // Null while no import has created the program's environment; null while
  // a library file's top-level forms run (load_library) means no environment.
  s->env_is_program = !g_env && !program_env();
  s->site = g_site;
  s->barrier = g_barrier;
  s->escape_only = escape_only;
  CallCcLink link{g_callcc_top, k->id,
                  reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) + 2 * sizeof(void *), nullptr};
  s->link = &link;
  g_callcc_top = &link;
  struct Pop {
    CallCcLink *link;
    ~Pop() { g_callcc_top = link->prev; }
  } pop{&link};
  s->under_prompt = g_prompt != nullptr;
  if (g_barrier) {
    s->barrier_site = g_barrier->site;
    s->barrier_what = g_barrier->what;
  } else if (g_prompt && !escape_only) {
    s->base = g_prompt->base;
    s->top = s->base;
    for (CallCcLink *l = link.prev; l; l = l->prev)
      if (l->state && l->state->stack && l->state->base == s->base) {
        s->top = l->frame_top;
        s->parent = l->state;
        break;
      }
    link.state = s;  // before the copy, so a reinstated frame has it too
    g_resumable_captures++;
    if (capture_stack(s)) {
      // Re-entered: this frame and every one above it up to the prompt are as
      // they were at the capture.
      arrive(s);
      return g_escape_values;
    }
  }
  // An escape from code that pushed no barrier since the capture lands here
  // by longjmp (invoke_continuation).
  if (setjmp(s->here)) {
    arrive(s);
    scrub_below(kScrubAfterEscape);
    return g_escape_values;
  }
  try {
    return call_procedure(f, 1, &kv);
  } catch (ContinuationThrow &t) {
    if (t.id != k->id) throw;
    g_handlers = s->handlers;
    return g_escape_values;
  }
}

// What a barrier stands for: its description, completed (when it ends in a
// space) by the operator of the call being evaluated, else that operator.
static std::string barrier_name(const ContinuationState *s) {
  std::string who = call_site_operator(s->barrier_site);
  std::string what = s->barrier_what ? s->barrier_what : "";
  if (!what.empty() && what.back() != ' ') return what;
  if (who.empty()) return what.empty() ? "a builtin that calls back into Lisp" : what + "a builtin";
  return what + who;
}

// Raises the error that says why k cannot be re-entered, if it cannot.
static void check_reenterable(const ContinuationState *s) {
  if (!s->stack) {
    if (s->escape_only)
      throw_error(
          "continuation: cannot re-enter an escape continuation (call-with-escape-continuation) after "
          "its extent has ended");
    if (!s->under_prompt)
      throw_error("continuation: cannot re-enter a continuation captured outside a top-level form");
    throw_errorf(
        "continuation: cannot re-enter a continuation after its extent has ended (captured inside {})",
        barrier_name(s));
  }
  if (!g_prompt) throw_error("continuation: cannot re-enter a continuation outside a top-level form");
  if (g_prompt->base != s->base)
    throw_error(
        "continuation: cannot re-enter a continuation captured under a top-level form at another depth "
        "(a form of a loaded file, re-entered after the load)");
}

void invoke_continuation(Value kv, int argc, Value *argv) {
  Continuation *k = as<Continuation>(kv);
  ContinuationState *s = state_of(kv);
  bool live = false;
  for (CallCcLink *l = g_callcc_top; l; l = l->prev)
    if (l->id == k->id) {
      live = true;
      break;
    }
  if (!live) check_reenterable(s);
  Value values = make_values(argc, argv);
  if (g_winders != s->winders) wind_to(s->winders);
  g_escape_values = values;
  // Frames pushed since the capture without a barrier are the evaluator's: no
  // C++ state to free, no active catch block, and destructors that only
  // restore globals `arrive` sets from s. They are dropped by a jump, which
  // spares the C++ unwinder (microseconds per throw): into the live call/cc
  // frame for an escape, into the copy for a re-entry.
  // The destructors such a jump skips, and why that is safe:
  // - HandlerScope, eval_toplevel's RestoreSite, call/cc's Pop: they restore
  //   g_handlers, g_site, g_callcc_top, which `arrive` sets; eval's switch of
  //   g_env likewise (s->env).
  // - run_closure's catch: it acts only on an exception passing through its
  //   frame, and a jump is none: skipping it skips nothing.
  // - A jump point's Pop (jump_unwind.h): `arrive` sets g_jump_top.
  // - eval_toplevel's ReleaseStack: a jump never leaves the prompt it is above.
  // - stack_overflow's Restore, gc_out_of_memory's Reset, Mpz/Mpq temporaries,
  //   a builtin's std::string or std::vector: their frames call Lisp only
  //   through apply_proc or a raise from C++ (raise_value: the handler runs
  //   under a barrier), so a jump never passes them.
  // - load's reader and a library's loading state (EnvGuard, the g_loading
  //   stack, the file text): under a barrier (eval_string, load_library,
  //   define_library).
  // - The std::exception_ptr of Guard::eval and with_wind_entry: empty while
  //   their body runs; once set, Lisp code runs under a barrier.
  if (live && g_barrier == s->barrier) longjmp(s->here, 1);
  if (!live && s->stack && !g_barrier && g_prompt && g_prompt->base == s->base) reinstate(s);
  if (live) throw ContinuationThrow{k->id};
  g_reentry_target = kv;
  throw ReentryThrow{};
}

}  // namespace kiln

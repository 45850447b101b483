// eval_internal.h — the analysed program: nodes, lambdas, scopes.
//
// Invariant: a source form is analysed once into a tree of Nodes (macros
// expanded, variables resolved to frame depth and slot, special forms chosen),
// and only the tree runs. Nodes, Lambdas and Scopes live in GC memory (they
// derive from `gc`), so the constants and symbols they hold stay alive.
//
// Tail calls: a call in tail position of a lambda body is a TailCall node; it
// evaluates its operator and operands and returns the TAILCALL marker with the
// callee in g_tail; run_closure's loop makes the call. No other node ever sees
// the marker, because only lambda bodies contain TailCall nodes, except the
// results of builtins that end in a call (apply, call-with-values): every
// place that calls a builtin outside tail position finishes such a TAILCALL.
//
// Frames of "leaf" lambdas (no lambda expression in their body) cannot be
// captured, so they live on the C++ stack; all others are in GC memory.
#pragma once
#include <gc/gc_allocator.h>

#include <functional>
#include <vector>

#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/object.h"

namespace kiln {

constexpr Value TAILCALL = mk(0x3E);
constexpr int kLocalFrameMax = 12;  // slots of a stack frame made for a tail-called leaf

template <class T> using GcVec = std::vector<T, gc_allocator<T>>;

// The running thread's lowest safe stack address (see eval.h). Code that
// recurses on the nesting of its input (evaluation, analysis, macro
// expansion) calls check_stack() at each level, so nesting deeper than the
// stack is a "stack overflow" error rather than a crash.
extern uintptr_t g_stack_limit;
[[noreturn]] void stack_overflow();
inline bool stack_exhausted() {
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) < g_stack_limit;
}
inline void check_stack() {
  if (stack_exhausted()) [[unlikely]]
    stack_overflow();
}

// Base of analysis objects: `new` puts them in scanned GC memory. (Not bdwgc's
// gc_cpp, whose library also replaces the global operator new for everyone.)
struct GcManaged {
  static void *operator new(size_t n) { return gc_alloc(n); }
  static void operator delete(void *) {}
};

struct Node : public GcManaged {
  SrcLoc loc;
  virtual ~Node() = default;
  virtual Value eval(Frame *env) = 0;
};

struct Lambda : public GcManaged {
  int nreq = 0;
  bool rest = false;
  bool leaf = false;
  int frame_size = 0;
  Node *body = nullptr;
  Value name = NOVALUE;  // symbol, or NOVALUE when anonymous
  Value doc = NOVALUE;   // documentation string
  SrcLoc loc;
};

// The call node being evaluated (see nodes.h); read when an error is raised.
extern Node *g_site;
SrcLoc current_site_loc();

struct TailState {
  Closure *closure;
  Frame *frame;  // heap frame, or nullptr: the args are in `args` (leaf callee)
  int argc;
  Value args[kLocalFrameMax];
};
extern TailState g_tail;

Value run_closure(Closure *c, Frame *f);
// apply_proc without its reentry barrier: for the evaluator's own calls and
// for builtins whose frames a continuation copy may resume (continuation.h).
Value call_procedure(Value f, int argc, Value *argv);
// The operator's name of a call node (for messages), or "" if it has none.
std::string call_site_operator(Node *site);
// From a node in tail position: arranges the call of f and returns TAILCALL
// (or, for non-closures, makes the call and returns its value).
Value tail_call_to(Value f, int argc, Value *argv);
// Makes the call a TAILCALL result stands for, outside any run_closure loop.
Value finish_tail(Value r);
Value closure_name(Value closure);
[[noreturn]] void not_a_procedure(Value f);
// Fills a frame for a closure call from evaluated arguments (checks arity).
void bind_args(Closure *c, Frame *f, int argc, const Value *argv);

// Syntax-rules: a transformer object (T_OPAQUE) and its expansion.
Value make_syntax_rules(Value spec, Value form);
bool is_syntax_rules(Value v);
// x names syntax-rules: itself, a macro's alias of it, or an imported name for it
// (`s:syntax-rules` after (import (prefix (scheme base) s:))).
bool names_syntax_rules(Value x);
// For ,describe: each rule's pattern (a list, in order), the documentation
// string (or NOVALUE) and the location of the defining form.
struct SyntaxRulesInfo {
  Value patterns;
  Value doc;
  SrcLoc loc;
};
SyntaxRulesInfo describe_syntax_rules(Value rules);
// What an expansion asks about the use site (macro_expand.cpp); see
// syntax_rules.cpp on hygiene.
struct MacroUseSite {
  // Whether a free template identifier means at the use what it means where
  // the macro was defined (then it stays as written; otherwise it becomes an alias).
  std::function<bool(Value id)> keeps_meaning;
  // Whether the form's identifier matches the pattern literal: same binding.
  std::function<bool(Value id, Value literal)> matches_literal;
  void *def_scope = nullptr;  // the macro's, recorded in the aliases it makes
  void *def_env = nullptr;
  // The use is inside a body (a local scope), where a `define` the template
  // introduces is a local binding and so renamed like a lambda parameter.
  bool in_body = false;
};
Value expand_syntax_rules(Value rules, Value form, const MacroUseSite &site);

}  // namespace kiln

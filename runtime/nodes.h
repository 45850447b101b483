// nodes.h — the node types the analyser builds and how each one runs.
//
// Invariant: see eval_internal.h. In addition: a call node stores itself in
// g_site when it starts and again after each operand, so when anything raises,
// g_site is the innermost list being evaluated: that is the error's location.
#pragma once
#include "runtime/eval_internal.h"
#include "runtime/global_reads.h"
#include "runtime/handlers.h"
#include "runtime/printer.h"

namespace kiln {

[[noreturn]] void undefined_variable(Value symbol);
// For a name of a form other Schemes have and Kiln does not (syntax-case,
// match, ...): the error that says so. Empty for any other name.
std::string unsupported_form_message(std::string_view name);
[[noreturn]] void used_before_definition(Value name);
Value finish_tail(Value r);

struct Const : Node {
  Value v;
  explicit Const(Value x) : v(x) {}
  Value eval(Frame *) override { return v; }
};

// value(env) reads the slot, UNINIT while the variable is not yet defined.
struct LocalRef0 : Node {
  int idx;
  Value name;
  LocalRef0(int i, Value n) : idx(i), name(n) {}
  Value value(Frame *env) const { return env->slots[idx]; }
  Value eval(Frame *env) override {
    Value v = value(env);
    if (v == UNINIT) [[unlikely]]
      used_before_definition(name);
    return v;
  }
};

struct LocalRef1 : Node {
  int idx;
  Value name;
  LocalRef1(int i, Value n) : idx(i), name(n) {}
  Value value(Frame *env) const { return env->parent->slots[idx]; }
  Value eval(Frame *env) override {
    Value v = value(env);
    if (v == UNINIT) [[unlikely]]
      used_before_definition(name);
    return v;
  }
};

struct LocalRefN : Node {
  int depth, idx;
  Value name;
  LocalRefN(int d, int i, Value n) : depth(d), idx(i), name(n) {}
  Value value(Frame *env) const {
    for (int d = depth; d > 0; d--) env = env->parent;
    return env->slots[idx];
  }
  Value eval(Frame *env) override {
    Value v = value(env);
    if (v == UNINIT) [[unlikely]]
      used_before_definition(name);
    return v;
  }
};

struct GlobalRef : Node {
  Symbol *s;
  explicit GlobalRef(Value sym) : s(as<Symbol>(sym)) {}
  Value eval(Frame *) override {
    Value v = s->global;
    if (v == NOVALUE) [[unlikely]]
      undefined_variable(from_ptr(s));
    if (g_global_reads) [[unlikely]]  // a jit trace depends on what it reads
      note_global_read(s);
    return v;
  }
};

struct LocalSet : Node {
  int depth, idx;
  Node *val;
  LocalSet(int d, int i, Node *v) : depth(d), idx(i), val(v) {}
  Value eval(Frame *env) override {
    Value v = val->eval(env);
    for (int d = depth; d > 0; d--) env = env->parent;
    env->slots[idx] = v;
    return UNSPEC;
  }
};

struct GlobalSet : Node {
  Symbol *s;
  Node *val;
  GlobalSet(Value sym, Node *v) : s(as<Symbol>(sym)), val(v) {}
  Value eval(Frame *env) override {
    Value v = val->eval(env);
    if (s->global == NOVALUE) undefined_variable(from_ptr(s));
    s->global = v;
    g_global_epoch++;
    return UNSPEC;
  }
};

struct GlobalDefine : Node {
  Symbol *s;
  Node *val;
  Value doc;
  GlobalDefine(Value sym, Node *v, Value d) : s(as<Symbol>(sym)), val(v), doc(d) {}
  Value eval(Frame *env) override {
    Value v = val->eval(env);
    // (define f (case-lambda ...)): the anonymous variants take the name. Other
    // anonymous closures keep theirs: a factory's lambda serves many names.
    if (is_closure(v) && is_closure(as<Closure>(v)->next_case))
      for (Value k = v; is_closure(k); k = as<Closure>(k)->next_case)
        if (as<Closure>(k)->lam->name == NOVALUE) as<Closure>(k)->lam->name = from_ptr(s);
    s->global = v;
    s->doc = doc;
    g_global_epoch++;
    return UNSPEC;
  }
};

// An `if` whose test is a symbolic value runs both branches and records a select.
// A loop whose test reads a traced value recurses through the same `if` inside its
// own branch without end; past kMaxSymbolicIfNesting such nested runs (a bound no
// select-shaped program reaches: each level is both branches) it is that loop, and
// raises at once instead of overflowing the stack seconds later.
constexpr uint32_t kMaxSymbolicIfNesting = 200;
// Bumped at the start of every trace, so a count left behind by a non-local exit
// (a continuation) belongs to an old trace and is ignored.
extern uint64_t g_symbolic_if_epoch;
[[noreturn]] void data_dependent_control();

struct If : Node {
  Node *test, *then_, *else_;
  uint32_t symbolic_nesting = 0;
  uint64_t nesting_epoch = 0;
  If(Node *t, Node *a, Node *b) : test(t), then_(a), else_(b) {}
  Value eval(Frame *env) override {
    Value t = test->eval(env);
    if (t == FALSE_V) return else_->eval(env);
    // Registered types only (tags above T_OPAQUE): see truth_unknown below.
    if (is_ptr(t) && hdr(t)->type > T_OPAQUE && g_type_hooks[hdr(t)->type].select) [[unlikely]]
      return eval_both(t, env);
    return then_->eval(env);
  }

 private:
  Value eval_both(Value t, Frame *env) {
    if (nesting_epoch != g_symbolic_if_epoch) {
      nesting_epoch = g_symbolic_if_epoch;
      symbolic_nesting = 0;
    }
    if (symbolic_nesting >= kMaxSymbolicIfNesting) data_dependent_control();
    struct Nested {
      uint32_t &n;
      explicit Nested(uint32_t &c) : n(c) { ++n; }
      ~Nested() { --n; }
    } nested(symbolic_nesting);
    Value a = finish_tail(then_->eval(env));
    Value b = finish_tail(else_->eval(env));
    return g_type_hooks[hdr(t)->type].select(t, a, b);
  }
};

struct Seq : Node {
  Node **items;
  int n;
  Seq(Node **it, int count) : items(it), n(count) {}
  Value eval(Frame *env) override {
    for (int i = 0; i < n - 1; i++) items[i]->eval(env);
    return items[n - 1]->eval(env);
  }
};

struct MakeClosure : Node {
  Lambda *lam;
  explicit MakeClosure(Lambda *l) : lam(l) {}
  Value eval(Frame *env) override {
    Closure *c = alloc_obj<Closure>(T_CLOSURE);
    c->lam = lam;
    c->env = env;
    c->next_case = NOVALUE;
    return from_ptr(c);
  }
};

struct Call : Node {
  Node *fn;
  Node **args;
  int argc;
  Call(Node *f, Node **a, int n) : fn(f), args(a), argc(n) {}
  Value eval(Frame *env) override;
};

struct TailCall : Node {
  Node *fn;
  Node **args;
  int argc;
  TailCall(Node *f, Node **a, int n) : fn(f), args(a), argc(n) {}
  Value eval(Frame *env) override;
};

// A call whose operator is a global variable that held a builtin when the call
// was analysed, with an argument count that builtin accepts. While the variable
// still holds it, the operands go straight to the builtin's function (read at
// each call: tracing swaps it); no operator node, arity check or dispatch on
// the procedure's kind. Otherwise `general`, the Call or TailCall of the same
// form, runs. A TAILCALL result (apply) is finished here, or returned from a
// tail position, as those nodes do.
struct GlobalBuiltinCall : Node {
  static constexpr int kMaxArgs = 4;
  Symbol *s;
  Value builtin;
  Node **args;
  int argc;
  bool tail;
  Node *general;
  GlobalBuiltinCall(Symbol *sy, Value b, Node **a, int n, bool t, Node *g)
      : s(sy), builtin(b), args(a), argc(n), tail(t), general(g) {}
  Value eval(Frame *env) override;
};

// let: inits run in the outer frame; letrec: in the new one.
struct Let : Node {
  Node **inits;
  int n;
  int frame_size;
  bool on_stack;  // nothing in the body captures the frame
  bool rec;
  Node *body;
  Let(Node **i, int count, int size, bool stack, bool r, Node *b)
      : inits(i), n(count), frame_size(size), on_stack(stack), rec(r), body(b) {}
  Value eval(Frame *env) override;
};

// Values whose truth is unknown (TypeHooks::truth: symbolic values, of which only
// `if` makes a select) are refused by and/or/not. Only types registered above
// T_OPAQUE have such a hook, and testing the tag first keeps the common case (a
// list or a string as a test) to the cost of one compare (docs/performance.md).
void check_truth_known(Value v, const char *form);
inline bool truth_unknown(Value v) {
  return is_ptr(v) && hdr(v)->type > T_OPAQUE && g_type_hooks[hdr(v)->type].truth;
}

struct And : Node {
  Node **items;
  int n;
  And(Node **it, int count) : items(it), n(count) {}
  Value eval(Frame *env) override {
    for (int i = 0; i < n - 1; i++) {
      Value v = items[i]->eval(env);
      if (v == FALSE_V) return FALSE_V;
      if (truth_unknown(v)) [[unlikely]]
        check_truth_known(v, "and");
    }
    return items[n - 1]->eval(env);
  }
};

struct Or : Node {
  Node **items;
  int n;
  Or(Node **it, int count) : items(it), n(count) {}
  Value eval(Frame *env) override {
    for (int i = 0; i < n - 1; i++) {
      Value v = items[i]->eval(env);
      if (truth_unknown(v)) [[unlikely]]
        check_truth_known(v, "or");
      if (v != FALSE_V) return v;
    }
    return items[n - 1]->eval(env);
  }
};

struct CaseClause {
  Value data;  // list of datums, or TRUE_V for else
  Node *body;
  bool arrow;  // (data => proc): body evaluates to the procedure
};

struct Case : Node {
  Node *key;
  CaseClause *clauses;
  int n;
  bool tail;
  Case(Node *k, CaseClause *c, int count, bool t) : key(k), clauses(c), n(count), tail(t) {}
  Value eval(Frame *env) override;
};

struct Guard : Node {
  Node *body;
  Node *handler;  // runs in a one-slot frame holding the condition
  Guard(Node *b, Node *h) : body(b), handler(h) {}
  Value eval(Frame *env) override;
};

// A marker value the guard's clause chain returns when no clause matched.
constexpr Value GUARD_NO_MATCH = mk(0x46);

}  // namespace kiln

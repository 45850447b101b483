// nodes.cpp — the nodes whose evaluation is more than a line: calls, let, case, guard.
#include "runtime/nodes.h"

#include <algorithm>
#include <exception>

#include "runtime/continuation.h"
#include "runtime/equal.h"
#include "runtime/eval.h"
#include "runtime/jump_unwind.h"
#include "runtime/utf8.h"

namespace kiln {

Node *g_site = nullptr;
SrcLoc current_site_loc() { return g_site ? g_site->loc : SrcLoc{}; }

// Names are UTF-8: distances count characters, not bytes (ö for o is one edit).
static std::u32string chars_of_name(std::string_view name) {
  std::u32string out;
  for (size_t i = 0; i < name.size();) {
    int32_t c = utf8_next(name, &i);
    if (c < 0) {
      c = int32_t(kReplacementChar);
      i++;
    }
    out += char32_t(c);
  }
  return out;
}

static int edit_distance(std::u32string_view a, std::u32string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); j++) prev[j] = int(j);
  for (size_t i = 1; i <= a.size(); i++) {
    cur[0] = int(i);
    for (size_t j = 1; j <= b.size(); j++)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string unsupported_form_message(std::string_view name) {
  static const char *const macro_systems[] = {"syntax-case",          "syntax",
                                              "quasisyntax",          "unsyntax",
                                              "unsyntax-splicing",    "with-syntax",
                                              "identifier-syntax",    "er-macro-transformer",
                                              "ir-macro-transformer", "sc-macro-transformer",
                                              "rsc-macro-transformer"};
  static const char *const matchers[] = {"match",      "match-lambda", "match-lambda*", "match-let",
                                         "match-let*", "match-letrec", "match-define"};
  for (const char *m : macro_systems)
    if (name == m)
      return fmt::format("{} is not supported: Kiln's macros are syntax-rules and defmacro", name);
  for (const char *m : matchers)
    if (name == m)
      return fmt::format("{} is not supported: Kiln has no pattern matcher (use cond, case or let-values)",
                         name);
  return {};
}

void undefined_variable(Value symbol) {
  std::string name(symbol_name(symbol));
  if (std::string m = unsupported_form_message(name); !m.empty()) throw_error(m);
  std::string best;
  int best_d = 3;
  std::u32string wanted = chars_of_name(name);
  for_each_symbol([&](Value s) {
    if (sym(s)->global == NOVALUE || s == symbol) return;
    std::string_view n = symbol_name(s);
    // A UTF-8 name has at least as many bytes as characters, at most four per character.
    if (n.size() + 2 < wanted.size() || wanted.size() * 4 + 2 < n.size()) return;
    std::u32string chars = chars_of_name(n);
    if (chars.size() + 2 < wanted.size() || wanted.size() + 2 < chars.size()) return;
    int d = edit_distance(wanted, chars);
    if (d < best_d || (d == best_d && !best.empty() && n < best)) {
      best_d = d;
      best = std::string(n);
    }
  });
  if (!best.empty()) throw_errorf("Undefined variable: {} (did you mean {}?)", name, best);
  throw_errorf("Undefined variable: {}", name);
}

void used_before_definition(Value name) {
  throw_errorf("{}: variable used before its definition", is_symbol(name) ? symbol_name(name) : "?");
}

uint64_t g_symbolic_if_epoch = 0;

void data_dependent_control() {
  throw_error(
      "graph: the value of a traced tensor decides control flow here (a Lisp 'if' on it, or a loop's test); "
      "inside traced code use tensor-where, fori-loop, scan or while-loop");
}

void check_truth_known(Value v, const char *form) {
  if (truth_unknown(v)) g_type_hooks[hdr(v)->type].truth(v, form);
}

Value finish_tail(Value r) {
  if (r != TAILCALL) return r;
  Closure *c = g_tail.closure;
  Frame *f = g_tail.frame;
  if (!f) {
    f = static_cast<Frame *>(gc_alloc(sizeof(Frame) + sizeof(Value) * size_t(c->lam->frame_size)));
    bind_args(c, f, g_tail.argc, g_tail.args);
  }
  return run_closure(c, f);
}

static inline Value call_builtin(Builtin *b, int argc, Value *argv) {
  if (argc < b->min_args || (b->max_args >= 0 && argc > b->max_args)) [[unlikely]]
    arity_error(b->name, b->min_args, b->max_args, argc);
  return b->fn(argc, argv);
}

Value Call::eval(Frame *env) {
  g_site = this;
  Value f = fn->eval(env);
  if (is_closure(f)) {
    Closure *c = as<Closure>(f);
    Lambda *L = c->lam;
    if (argc == L->nreq && !L->rest) {
      // Operands go straight into the callee's frame.
      size_t bytes = sizeof(Frame) + sizeof(Value) * size_t(L->frame_size);
      Frame *nf = L->leaf ? static_cast<Frame *>(alloca(bytes)) : static_cast<Frame *>(gc_alloc(bytes));
      nf->parent = c->env;
      for (int i = 0; i < argc; i++) {
        nf->slots[i] = args[i]->eval(env);
        g_site = this;
      }
      for (int i = argc; i < L->frame_size; i++) nf->slots[i] = UNINIT;
      return run_closure(c, nf);
    }
  }
  Value *argv = static_cast<Value *>(alloca(sizeof(Value) * size_t(argc ? argc : 1)));
  for (int i = 0; i < argc; i++) {
    argv[i] = args[i]->eval(env);
    g_site = this;
  }
  if (is_builtin(f)) {
    // apply and call-with-values return TAILCALL for their callee (see below).
    Value r = call_builtin(as<Builtin>(f), argc, argv);
    return r == TAILCALL ? finish_tail(r) : r;
  }
  return call_procedure(f, argc, argv);
}

Value TailCall::eval(Frame *env) {
  g_site = this;
  Value f = fn->eval(env);
  // Operands are evaluated into our own array first: evaluating them may run
  // other tail calls, which reuse g_tail.
  Value *argv = static_cast<Value *>(alloca(sizeof(Value) * size_t(argc ? argc : 1)));
  for (int i = 0; i < argc; i++) {
    argv[i] = args[i]->eval(env);
    g_site = this;
  }
  // A builtin that ends in a call of its own (apply) may return TAILCALL: it
  // travels up to run_closure like ours.
  if (is_builtin(f)) return call_builtin(as<Builtin>(f), argc, argv);
  return tail_call_to(f, argc, argv);
}

Value GlobalBuiltinCall::eval(Frame *env) {
  if (s->global != builtin) [[unlikely]]
    return general->eval(env);
  if (g_global_reads) [[unlikely]]
    note_global_read(s);
  g_site = this;
  Value argv[kMaxArgs];
  for (int i = 0; i < argc; i++) {
    argv[i] = args[i]->eval(env);
    g_site = this;
  }
  Value r = as<Builtin>(builtin)->fn(argc, argv);
  if (tail) return r;
  return r == TAILCALL ? finish_tail(r) : r;
}

Value Let::eval(Frame *env) {
  size_t bytes = sizeof(Frame) + sizeof(Value) * size_t(frame_size);
  Frame *nf = on_stack ? static_cast<Frame *>(alloca(bytes)) : static_cast<Frame *>(gc_alloc(bytes));
  nf->parent = env;
  if (rec) {
    for (int i = 0; i < frame_size; i++) nf->slots[i] = UNINIT;
    for (int i = 0; i < n; i++) nf->slots[i] = inits[i]->eval(nf);
  } else {
    for (int i = 0; i < n; i++) nf->slots[i] = inits[i]->eval(env);
    for (int i = n; i < frame_size; i++) nf->slots[i] = UNINIT;
  }
  // A stack frame dies with this call, so a tail call out of the body must not
  // leave a reference to it: TailCall copies its arguments before returning.
  return body->eval(nf);
}

// eqv? (bignums and ratnums by value), with the immediate case inline.
static bool case_eqv(Value a, Value b) { return a == b || (is_ptr(a) && is_ptr(b) && eqv(a, b)); }

Value Case::eval(Frame *env) {
  Value k = key->eval(env);
  for (int i = 0; i < n; i++) {
    CaseClause &c = clauses[i];
    bool hit = c.data == TRUE_V;
    for (Value d = c.data; !hit && is_pair(d); d = cdr(d)) hit = case_eqv(car(d), k);
    if (!hit) continue;
    if (c.arrow) {
      Value f = c.body->eval(env);
      return tail ? tail_call_to(f, 1, &k) : call_procedure(f, 1, &k);
    }
    return c.body->eval(env);
  }
  return UNSPEC;
}

Value Guard::eval(Frame *env) {
  // The clauses run after the catch block has ended: a continuation captured
  // in a catch block could not be resumed once the C++ runtime has freed the
  // caught exception (continuation.h). The exception is kept for a re-raise,
  // so the clauses run under a barrier: this frame holds it.
  std::exception_ptr caught;
  try {
    HandlerScope scope(cons(FALSE_V, g_handlers));  // a guard marker: not a procedure
    // A jump point: an error from deep below comes here by a jump
    // (jump_unwind.h), rethrown inside this try.
    struct Body {
      Node *body;
      Frame *env;
    } b{body, env};
    return run_at_jump_point(
        [](void *p) {
          auto *b = static_cast<Body *>(p);
          return finish_tail(b->body->eval(b->env));
        },
        &b);
  } catch (LispError &) {
    caught = std::current_exception();
  }
  // A handler that itself raises sends each enclosing guard through here
  // without a call or a loop in between: without this poll, Ctrl-C would wait
  // for the whole unwind (issue 11: 10^5 guards, seconds).
  check_interrupt();
  Value condition = g_raised;
  Frame *nf = static_cast<Frame *>(gc_alloc(sizeof(Frame) + sizeof(Value)));
  nf->parent = env;
  nf->slots[0] = condition;
  Value r;
  {
    BarrierScope barrier(this, "a guard clause");
    r = finish_tail(handler->eval(nf));
    if (r != GUARD_NO_MATCH) return r;
    if (is_procedure(current_handler())) return raise_continuable(condition);
  }
  g_raised = condition;
  std::rethrow_exception(caught);
}

std::string call_site_operator(Node *site) {
  Node *fn = nullptr;
  if (auto *c = dynamic_cast<GlobalBuiltinCall *>(site)) return std::string(symbol_name(from_ptr(c->s)));
  if (auto *c = dynamic_cast<Call *>(site)) fn = c->fn;
  if (auto *c = dynamic_cast<TailCall *>(site)) fn = c->fn;
  if (auto *g = dynamic_cast<GlobalRef *>(fn)) return std::string(symbol_name(from_ptr(g->s)));
  return "";
}

}  // namespace kiln

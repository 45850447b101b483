// quasiquote.cpp — quasiquote templates analysed into nodes that build the datum.
//
// Invariant: the parts of a template with no unquote at the current nesting
// level become Const nodes of the source datum itself (as quote would: shared,
// not copied), so only the spine leading to an unquote is rebuilt at run time.
// Nesting (`(a `(b ,(c ,d)))) counts depth: only an unquote at depth 1 is
// evaluated; deeper ones are kept as data with their insides analysed at depth - 1.
#include "runtime/analyze_internal.h"
#include "runtime/list_builder.h"

namespace kiln {

static Value qq_cons(int, Value *a) { return cons(a[0], a[1]); }
static Value qq_append(int, Value *a) {
  ListBuilder out;
  for (Value p = a[0]; is_pair(p); p = cdr(p)) out.push(car(p));
  return out.finish(a[1]);
}
static Value qq_list_to_vector(int, Value *a) {
  int n = list_length(a[0]);
  Value v = make_vector(n, NIL);
  int i = 0;
  for (Value p = a[0]; is_pair(p); p = cdr(p)) as<Vector>(v)->items[i++] = car(p);
  return v;
}

namespace {

// A builtin of two evaluated operands (the second NIL when absent), called directly.
struct PrimCall : Node {
  BuiltinFn fn;
  Node *a, *b;
  PrimCall(BuiltinFn f, Node *x, Node *y) : fn(f), a(x), b(y) {}
  Value eval(Frame *env) override {
    Value args[2] = {a->eval(env), b ? b->eval(env) : NIL};
    return fn(2, args);
  }
};

}  // namespace

static bool is_form(Value x, const char *name) {
  return is_pair(x) && unaliased(car(x)) == intern(name) && is_pair(cdr(x)) && cddr_(x) == NIL;
}

static bool is_const(Node *n) { return dynamic_cast<Const *>(n) != nullptr; }

// (NAME inner), rebuilt at run time: a nested quasiquote, unquote or
// unquote-splicing form kept as data.
static Node *qq_form(const char *name, Node *inner) {
  return new PrimCall(qq_cons, new Const(intern(name)), new PrimCall(qq_cons, inner, new Const(NIL)));
}

// Bottom-up, so each part is looked at once: a part with no unquote at this
// level becomes a Const of the source datum itself, as quote would. Iterates
// along cdr chains; recursion is on nesting only, checked against the stack.
Node *analyze_quasiquote(Value x, int depth, Scope *sc) {
  check_stack();
  if (is_vector(x)) {
    Value lst = NIL;
    Vector *v = as<Vector>(x);
    for (int64_t i = v->len - 1; i >= 0; i--) lst = cons(v->items[i], lst);
    Node *items = analyze_quasiquote(lst, depth, sc);
    if (is_const(items)) return new Const(x);
    return new PrimCall(qq_list_to_vector, items, nullptr);
  }
  if (is_form(x, "unquote")) {
    if (depth == 1) return analyze(cadr_(x), sc, false);
    return qq_form("unquote", analyze_quasiquote(cadr_(x), depth - 1, sc));
  }
  if (is_form(x, "quasiquote")) {
    Node *inner = analyze_quasiquote(cadr_(x), depth + 1, sc);
    if (is_const(inner)) return new Const(x);
    return qq_form("quasiquote", inner);
  }
  if (!is_pair(x)) return new Const(x);
  if (is_circular(x)) bad_syntax(x, "quasiquote");
  GcVec<Value> chain;  // the pairs of x's cdr chain, up to a tail that is a form itself
  Value tail = x;
  do {
    chain.push_back(tail);
    tail = cdr(tail);
  } while (is_pair(tail) && !is_form(tail, "unquote") && !is_form(tail, "quasiquote"));
  Node *rest = analyze_quasiquote(tail, depth, sc);
  for (size_t i = chain.size(); i-- > 0;) {
    Value p = chain[i], head = car(p);
    if (is_form(head, "unquote-splicing")) {
      if (depth == 1) rest = new PrimCall(qq_append, analyze(cadr_(head), sc, false), rest);
      else
        rest = new PrimCall(
            qq_cons, qq_form("unquote-splicing", analyze_quasiquote(cadr_(head), depth - 1, sc)), rest);
      continue;
    }
    Node *first = analyze_quasiquote(head, depth, sc);
    if (is_const(first) && is_const(rest)) rest = new Const(p);
    else rest = new PrimCall(qq_cons, first, rest);
  }
  return rest;
}

}  // namespace kiln

// analyze.cpp — turning forms into nodes: the special forms, bodies and calls.
// Quasiquote is quasiquote.cpp's, macro expansion macro_expand.cpp's, and
// eval_toplevel (eval.cpp) is where a top-level form enters.
//
// Invariant: see analyze_internal.h (open scopes and scope_bindings) and
// eval_internal.h (a form is analysed once; only the node tree runs). A body's
// defines are all bound in its scope before any of its forms is analysed, and
// a scope's frame is a leaf (on the C++ stack) unless a lambda expression in
// its extent marked it captured.
#include <string>

#include "runtime/analyze_internal.h"
#include "runtime/eval.h"
#include "runtime/fused_elementwise.h"
#include "runtime/library.h"
#include "runtime/reader.h"
#include "runtime/srcloc.h"

namespace kiln {

// Marks the scopes up to the enclosing function's as captured. Marking stops
// at a scope marked already: the ones above it up to the function's were
// marked with it, so a lambda in each of n nested lets costs O(n), not O(n^2).
static void mark_captured(Scope *sc) {
  for (; sc && !sc->captured; sc = sc->parent) {
    sc->captured = true;
    if (sc->is_function) break;
  }
}

// ---- errors ------------------------------------------------------------

void syntax_error(Value form, std::string_view what) { throw_error_at(loc_of(form), what); }

void bad_syntax(Value form, std::string_view name) {
  std::string s = error_value_string(form, 57);  // 60 with the "..."
  syntax_error(form, fmt::format("{}: bad syntax in {}", name, s));
}

void form_too_short(Value part) {
  std::string s = error_value_string(part, 57);
  syntax_error(part, fmt::format("bad syntax: a form ends too early at {}", s));
}

// ---- helpers -------------------------------------------------------------

static Value include_forms(Value form, bool fold_case);
static Node *analyze_body(Value forms, Scope *sc, bool tail, Value whole);

// The keyword is the cell the head names (library.h), so a special form
// imported under another name, `(import (prefix (scheme base) s:))`, is one.
uint32_t special_of(Value x, Scope *sc) {
  if (!is_pair(x) || !is_symbol(car(x))) return SF_NONE;
  Value head = car(x);
  // Without environments or aliases a name is its own cell: most heads stop here.
  if (!sym(head)->special && !g_env && sym(head)->alias_of == NOVALUE) return SF_NONE;
  if (lookup(head, sc).kind != Lookup::GLOBAL) return SF_NONE;
  Symbol *cell = sym(global_cell(head));
  if (!cell->special || has_type(cell->global, T_MACRO)) return SF_NONE;
  return cell->special;
}

// ---- lambda ----------------------------------------------------------------

Lambda *analyze_lambda(Value params, Value body, Scope *sc, Value name, Value form) {
  Lambda *L = new Lambda();
  OpenScope fs(sc, true);
  Value p = params;
  for (; is_pair(p); p = cdr(p)) {
    if (!is_symbol(car(p))) bad_syntax(form, "lambda");
    if (fs->find(car(p)) >= 0)
      syntax_error(form, fmt::format("lambda: duplicate parameter {}", symbol_name(car(p))));
    fs->bind(car(p));
    L->nreq++;
  }
  if (p != NIL) {
    if (!is_symbol(p)) bad_syntax(form, "lambda");
    fs->bind(p);
    L->rest = true;
  }
  mark_captured(sc);
  L->name = name;
  L->loc = loc_of(form);
  if (is_pair(body) && is_string(car(body)) && is_pair(cdr(body))) {
    L->doc = car(body);
    body = cdr(body);
  }
  if (body == NIL) syntax_error(form, "lambda: empty body");
  L->body = analyze_body(body, fs, true, form);
  L->frame_size = int(fs->names.size());
  L->leaf = fs->on_stack();
  return L;
}

// ---- variable forms ----------------------------------------------------------

static Node *analyze_ref(Value s, Scope *sc) {
  Lookup l = lookup(s, sc);
  if (l.kind == Lookup::LOCAL) {
    if (l.depth == 0) return new LocalRef0(l.idx, s);
    if (l.depth == 1) return new LocalRef1(l.idx, s);
    return new LocalRefN(l.depth, l.idx, s);
  }
  if (l.kind == Lookup::MACRO) throw_errorf("{}: macro used as a variable", symbol_name(s));
  return new GlobalRef(global_cell(s));
}

static Node *analyze_set(Value name, Node *val, Scope *sc, Value form) {
  Lookup l = lookup(name, sc);
  if (l.kind == Lookup::LOCAL) {
    Scope *owner = sc;
    for (int d = 0; d < l.depth; d++) owner = owner->parent;
    owner->assigned = true;
    return at(new LocalSet(l.depth, l.idx, val), form);
  }
  if (l.kind == Lookup::MACRO) bad_syntax(form, "set!");
  if (is_imported_library_variable(name))
    syntax_error(
        form, fmt::format("set!: {} is imported from a library and cannot be assigned", symbol_name(name)));
  return at(new GlobalSet(global_cell(name), val), form);
}

// (define (f . args) body...) → name, value form; curried defines are not supported.
static void parse_define(Value form, Value *name, Value *value_form, Value *doc) {
  *doc = NOVALUE;
  Value rest = cdr(form);
  if (!is_pair(rest)) bad_syntax(form, "define");
  Value target = car(rest);
  if (is_pair(target)) {
    if (!is_symbol(car(target))) bad_syntax(form, "define");
    *name = car(target);
    Value body = cdr(rest);
    if (is_pair(body) && is_string(car(body)) && is_pair(cdr(body))) *doc = car(body);
    Value lam = cons(intern("named-lambda"), cons(cons(*name, cdr(target)), body));
    set_loc(lam, loc_of(form));
    *value_form = lam;
    return;
  }
  if (!is_symbol(target)) bad_syntax(form, "define");
  *name = target;
  if (cdr(rest) == NIL) *value_form = NOVALUE;
  else if (is_pair(cdr(rest)) && cddr_(rest) == NIL) *value_form = cadr_(rest);
  else bad_syntax(form, "define");
}

static Node *analyze_named_value(Value value_form, Scope *sc, Value name) {
  if (value_form == NOVALUE) return new Const(UNSPEC);
  if (is_pair(value_form) && unaliased(car(value_form)) == intern("lambda") &&
      special_of(value_form, sc) == SF_LAMBDA && is_pair(cdr(value_form))) {
    return at(new MakeClosure(analyze_lambda(cadr_(value_form), cddr_(value_form), sc, name, value_form)),
              value_form);
  }
  return analyze(value_form, sc, false);
}

// ---- cond / case / guard -----------------------------------------------------

static Node *analyze_seq(Value forms, Scope *sc, bool tail, Value form) {
  int n = list_length(forms);
  // Named after the form whose body it is: (when #t . 1) is when's bad syntax.
  if (n < 0) bad_syntax(form, is_pair(form) && is_symbol(car(form)) ? symbol_name(car(form)) : "begin");
  if (n == 0) return new Const(UNSPEC);
  if (n == 1) return analyze(car(forms), sc, tail);
  Node **items = node_array<Node>(n);
  int i = 0;
  for (Value p = forms; is_pair(p); p = cdr(p), i++) items[i] = analyze(car(p), sc, tail && i == n - 1);
  return new Seq(items, n);
}

// `else` and `=>` are cond's and case's auxiliary syntax only where they have
// their global meaning: a local variable named `=>` or `else` is a variable.
// By binding: `else` imported under another name is else, a local `else` is not.
static bool is_aux_keyword(Value x, const char *name, Scope *sc) {
  if (!is_symbol(x)) return false;
  if (!g_env && sym(x)->alias_of == NOVALUE && x != intern(name)) return false;
  return lookup(x, sc).kind == Lookup::GLOBAL && global_cell(x) == intern(name);
}

static Node *analyze_cond_clauses(Value clauses, Scope *sc, bool tail, Value form, Node *fallthrough) {
  check_stack();
  if (clauses == NIL) return fallthrough ? fallthrough : new Const(UNSPEC);
  if (!is_pair(clauses) || !is_pair(car(clauses))) bad_syntax(form, "cond");
  Value clause = car(clauses);
  Value test = car(clause), body = cdr(clause);
  if (is_aux_keyword(test, "else", sc)) {
    if (cdr(clauses) != NIL) syntax_error(form, "cond: else clause must be last");
    return analyze_seq(body, sc, tail, form);
  }
  if (body == NIL) {
    // (cond (test) ...) yields the test's value when true.
    Node **items = node_array<Node>(2);
    items[0] = analyze(test, sc, false);
    items[1] = analyze_cond_clauses(cdr(clauses), sc, tail, form, fallthrough);
    return new Or(items, 2);
  }
  if (is_pair(body) && is_aux_keyword(car(body), "=>", sc)) {
    if (!is_pair(cdr(body)) || cddr_(body) != NIL) bad_syntax(form, "cond");
    // (let ((t test)) (if t (f t) rest)) — built as nodes with a fresh one-slot scope.
    OpenScope ls(sc);
    Value tmp = gensym("cond-value");
    ls->bind(tmp);
    Node **args = node_array<Node>(1);
    args[0] = new LocalRef0(0, tmp);
    Node *fnode = analyze(cadr_(body), ls, false);
    Node *call = tail ? static_cast<Node *>(at(new TailCall(fnode, args, 1), clause))
                      : static_cast<Node *>(at(new Call(fnode, args, 1), clause));
    // The remaining clauses run inside the new frame, so they are analysed in it.
    Node *rest_in = analyze_cond_clauses(cdr(clauses), ls, tail, form, fallthrough);
    Node **inits = node_array<Node>(1);
    inits[0] = analyze(test, sc, false);
    Node *body_node = new If(new LocalRef0(0, tmp), call, rest_in);
    return new Let(inits, 1, int(ls->names.size()), ls->on_stack(), false, body_node);
  }
  Node *rest = analyze_cond_clauses(cdr(clauses), sc, tail, form, fallthrough);
  return at(new If(analyze(test, sc, false), analyze_seq(body, sc, tail, form), rest), clause);
}

static Node *analyze_case(Value form, Scope *sc, bool tail) {
  if (!is_pair(cdr(form))) bad_syntax(form, "case");
  Node *key = analyze(cadr_(form), sc, false);
  int n = list_length(cddr_(form));
  if (n < 0) bad_syntax(form, "case");
  CaseClause *clauses = static_cast<CaseClause *>(gc_alloc(sizeof(CaseClause) * size_t(n ? n : 1)));
  int i = 0;
  for (Value p = cddr_(form); is_pair(p); p = cdr(p), i++) {
    Value clause = car(p);
    if (!is_pair(clause)) bad_syntax(form, "case");
    Value data = car(clause);
    if (is_aux_keyword(data, "else", sc)) data = TRUE_V;
    else if (list_length(data) < 0) bad_syntax(form, "case");
    Value body = cdr(clause);
    bool arrow = is_pair(body) && is_aux_keyword(car(body), "=>", sc);
    // (data => receiver): exactly one expression after the arrow.
    if (arrow && (!is_pair(cdr(body)) || cddr_(body) != NIL)) bad_syntax(form, "case");
    clauses[i].data = data;
    clauses[i].arrow = arrow;
    clauses[i].body = arrow ? analyze(cadr_(body), sc, false) : analyze_seq(body, sc, tail, form);
  }
  return at(new Case(key, clauses, n, tail), form);
}

static Node *analyze_guard(Value form, Scope *sc) {
  // (guard (var clause...) body...)
  if (!is_pair(cdr(form)) || !is_pair(cadr_(form)) || !is_symbol(car(cadr_(form)))) bad_syntax(form, "guard");
  Value var = car(cadr_(form));
  Value clauses = cdr(cadr_(form));
  Node *body = analyze_body(cddr_(form), sc, false, form);
  OpenScope hs(sc);
  hs->bind(var);
  Node *handler = analyze_cond_clauses(clauses, hs, false, form, new Const(GUARD_NO_MATCH));
  mark_captured(sc);  // the handler frame is on the heap and points at this one
  return at(new Guard(body, handler), form);
}

// ---- let family --------------------------------------------------------------

static Node *analyze_let(Value form, Scope *sc, bool tail, bool rec) {
  Value rest = cdr(form);
  if (!is_pair(rest)) bad_syntax(form, "let");
  Value bindings = car(rest);
  Value body = cdr(rest);
  if (is_symbol(bindings) && !rec) {
    // Named let: ((letrec ((name (lambda vars body...))) name) inits...)
    Value name = bindings;
    if (!is_pair(body)) bad_syntax(form, "let");
    Value binds = car(body);
    Value lbody = cdr(body);
    Value vars = NIL, inits = NIL;
    if (list_length(binds) < 0) bad_syntax(form, "let");
    for (Value p = binds; is_pair(p); p = cdr(p)) {
      Value b = car(p);
      if (!is_pair(b) || !is_symbol(car(b))) bad_syntax(form, "let");
      vars = cons(car(b), vars);
      inits = cons(is_pair(cdr(b)) ? cadr_(b) : UNSPEC, inits);
    }
    Value rv = NIL, ri = NIL;
    for (Value p = vars; is_pair(p); p = cdr(p)) rv = cons(car(p), rv);
    for (Value p = inits; is_pair(p); p = cdr(p)) ri = cons(car(p), ri);
    Node *letrec;
    {
      OpenScope ls(sc);
      ls->bind(name);
      Lambda *L = analyze_lambda(rv, lbody, ls, name, form);
      Node **linits = node_array<Node>(1);
      linits[0] = at(new MakeClosure(L), form);
      letrec = new Let(linits, 1, int(ls->names.size()), false, true, new LocalRef0(0, name));
    }
    int n = list_length(ri);
    Node **args = node_array<Node>(n);
    int i = 0;
    for (Value p = ri; is_pair(p); p = cdr(p)) args[i++] = analyze(car(p), sc, false);
    if (tail) return at(new TailCall(letrec, args, n), form);
    return at(new Call(letrec, args, n), form);
  }
  int n = list_length(bindings);
  if (n < 0) bad_syntax(form, rec ? "letrec" : "let");
  OpenScope ls(sc);
  Value vals = NIL;
  for (Value p = bindings; is_pair(p); p = cdr(p)) {
    Value b = car(p);
    if (is_symbol(b)) b = cons(b, NIL);
    if (!is_pair(b) || !is_symbol(car(b)) || (cdr(b) != NIL && (!is_pair(cdr(b)) || cddr_(b) != NIL)))
      bad_syntax(form, rec ? "letrec" : "let");
    if (ls->find(car(b)) >= 0)
      syntax_error(form, fmt::format("let: duplicate binding {}", symbol_name(car(b))));
    ls->bind(car(b));
    vals = cons(cdr(b) == NIL ? NOVALUE : cadr_(b), vals);
  }
  Value rvals = NIL;
  for (Value p = vals; is_pair(p); p = cdr(p)) rvals = cons(car(p), rvals);
  Node **inits = node_array<Node>(n);
  int i = 0;
  for (Value p = rvals; is_pair(p); p = cdr(p), i++)
    inits[i] = analyze_named_value(car(p), rec ? ls : sc, ls->names[size_t(i)]);
  if (body == NIL) syntax_error(form, "let: empty body");
  Node *b = analyze_body(body, ls, tail, form);
  return at(new Let(inits, n, int(ls->names.size()), ls->on_stack(), rec, b), form);
}

static Node *analyze_let_star(Value form, Scope *sc, bool tail) {
  Value rest = cdr(form);
  if (!is_pair(rest) || list_length(car(rest)) < 0) bad_syntax(form, "let*");
  Value bindings = car(rest);
  if (bindings == NIL || cdr(bindings) == NIL) {
    Value f = cons(intern("let"), rest);
    set_loc(f, loc_of(form));
    return analyze_let(f, sc, tail, false);
  }
  Value inner = cons(intern("let*"), cons(cdr(bindings), cdr(rest)));
  set_loc(inner, loc_of(form));
  Value outer = cons(intern("let"), cons(cons(car(bindings), NIL), cons(inner, NIL)));
  set_loc(outer, loc_of(form));
  return analyze_let(outer, sc, tail, false);
}

// ---- bodies ----------------------------------------------------------------

static bool head_is(Value x, uint32_t sf, Scope *sc) { return special_of(x, sc) == sf; }

// Expands macros at the head of each body form, splices `begin`s, and handles
// define-syntax, so the defines of the body are all known before analysis.
static void flatten_body(Value forms, Scope *sc, GcVec<Value> &out) {
  for (Value p = forms; is_pair(p); p = cdr(p)) {
    Value x = car(p);
    for (;;) {
      Value e = macro_step(x, sc);
      if (e == NOVALUE) break;
      x = e;
    }
    if (head_is(x, SF_BEGIN, sc)) {
      if (list_length(cdr(x)) < 0) bad_syntax(x, "begin");
      flatten_body(cdr(x), sc, out);
    } else if (head_is(x, SF_INCLUDE, sc) || head_is(x, SF_INCLUDE_CI, sc)) {
      flatten_body(cdr(include_forms(x, head_is(x, SF_INCLUDE_CI, sc))), sc, out);
    } else if (head_is(x, SF_DEFINE_RECORD_TYPE, sc)) {
      flatten_body(cdr(expand_record_type_definition(x)), sc, out);
    } else if (head_is(x, SF_DEFINE_SYNTAX, sc)) {
      if (list_length(x) != 3 || !is_symbol(cadr_(x))) bad_syntax(x, "define-syntax");
      Value tr = eval_transformer(car(cddr_(x)), x, sc);
      sc->bind_macro(cadr_(x), make_macro(cadr_(x), tr, !is_syntax_rules(tr), sc));
    } else if (head_is(x, SF_DEFMACRO, sc) || head_is(x, SF_DEFINE_MACRO, sc)) {
      bool dm = head_is(x, SF_DEFMACRO, sc);
      Value name, params, body;
      if (dm) {
        if (list_length(x) < 3 || !is_symbol(cadr_(x))) bad_syntax(x, "defmacro");
        name = cadr_(x);
        params = car(cddr_(x));
        body = cdr(cddr_(x));
      } else {
        if (list_length(x) < 3 || !is_pair(cadr_(x))) bad_syntax(x, "define-macro");
        name = car(cadr_(x));
        params = cdr(cadr_(x));
        body = cddr_(x);
      }
      sc->bind_macro(name, make_macro(name, defmacro_transformer(params, body, name, x), false, sc));
    } else {
      out.push_back(x);
    }
  }
}

static Node *analyze_body(Value forms, Scope *sc, bool tail, Value whole) {
  if (list_length(forms) < 0) bad_syntax(whole, "body");
  if (!sc) return analyze_seq(forms, sc, tail, whole);
  GcVec<Value> items;
  flatten_body(forms, sc, items);
  int n = int(items.size());
  if (n == 0) return new Const(UNSPEC);
  // Internal defines become slots of this scope's frame (letrec* semantics):
  // every name is added before any value form is analysed.
  GcVec<Value> define_names(size_t(n), NOVALUE), define_values(size_t(n), NOVALUE);
  for (int i = 0; i < n; i++)
    if (head_is(items[size_t(i)], SF_DEFINE, sc)) {
      Value doc;
      parse_define(items[size_t(i)], &define_names[size_t(i)], &define_values[size_t(i)], &doc);
      sc->add(define_names[size_t(i)]);
    }
  Node **nodes = node_array<Node>(n);
  for (int i = 0; i < n; i++) {
    Value x = items[size_t(i)], name = define_names[size_t(i)];
    if (name != NOVALUE)
      nodes[i] =
          at(new LocalSet(0, sc->find(name), analyze_named_value(define_values[size_t(i)], sc, name)), x);
    else nodes[i] = analyze(x, sc, tail && i == n - 1);
  }
  return n == 1 ? nodes[0] : new Seq(nodes, n);
}

// ---- the dispatcher ---------------------------------------------------------

// (syntax-case ...) or (match ...) with the name unbound: its operands are
// patterns, not expressions, and analysing them would fail with a message
// about the pattern ("() is not an expression"). Say what is missing instead.
// The operands are tried first, without handlers (so none sees the failure),
// since a program may define its own `match` procedure further down.
static void check_unsupported_form(Value x, Scope *sc) {
  Value head = car(x);
  if (!is_symbol(head) || lookup(head, sc).kind != Lookup::GLOBAL ||
      sym(global_cell(head))->global != NOVALUE)
    return;
  std::string msg = unsupported_form_message(symbol_name(unaliased(head)));
  if (msg.empty()) return;
  bool fails = false;
  {
    HandlerScope none(NIL);
    try {
      for (Value p = cdr(x); is_pair(p); p = cdr(p)) analyze(car(p), sc, false);
    } catch (LispError &) {
      fails = true;
    }
  }
  if (fails) syntax_error(x, msg);
}

static Node *analyze_call(Value x, Scope *sc, bool tail) {
  int n = list_length(cdr(x));
  if (n < 0) syntax_error(x, fmt::format("bad syntax: improper list in call {}", error_value_string(x)));
  check_unsupported_form(x, sc);
  Node *fn = analyze(car(x), sc, false);
  Node **args = node_array<Node>(n);
  int i = 0;
  for (Value p = cdr(x); is_pair(p); p = cdr(p)) args[i++] = analyze(car(p), sc, false);
  Node *call = tail ? static_cast<Node *>(at(new TailCall(fn, args, n), x)) : at(new Call(fn, args, n), x);
  if (auto *ref = dynamic_cast<GlobalRef *>(fn); ref && is_builtin(ref->s->global)) {
    Builtin *b = as<Builtin>(ref->s->global);
    if (n <= GlobalBuiltinCall::kMaxArgs && n >= b->min_args && (b->max_args < 0 || n <= b->max_args))
      call = at(new GlobalBuiltinCall(ref->s, ref->s->global, args, n, tail, call), x);
  }
  return fuse_elementwise_call(call);
}

// include-ci reads the files as if they began with #!fold-case.
static Value include_forms(Value form, bool fold_case) {
  const char *who = fold_case ? "include-ci" : "include";
  Value out = NIL;
  for (Value p = cdr(form); is_pair(p); p = cdr(p)) {
    if (!is_string(car(p))) bad_syntax(form, who);
    for (Value q = read_included_file(std::string(string_view_of(car(p))), form, fold_case, who); is_pair(q);
         q = cdr(q))
      out = cons(car(q), out);
  }
  Value r = NIL;
  for (Value p = out; is_pair(p); p = cdr(p)) r = cons(car(p), r);
  return cons(intern("begin"), r);
}

Node *analyze(Value x, Scope *sc, bool tail) {
  check_stack();
  if (is_symbol(x)) return analyze_ref(x, sc);
  if (!is_pair(x)) {
    if (x == NIL) syntax_error(x, "bad syntax: () is not an expression (use '())");
    return new Const(x);
  }
  Value head = car(x);
  if (is_symbol(head)) {
    Value e = macro_step(x, sc);
    if (e != NOVALUE) return analyze(e, sc, tail);
    switch (special_of(x, sc)) {
    case SF_NONE: break;
    case SF_QUOTE:
      if (!is_pair(cdr(x)) || cddr_(x) != NIL) bad_syntax(x, "quote");
      return new Const(cadr_(x));
    case SF_QUASIQUOTE:
      if (!is_pair(cdr(x)) || cddr_(x) != NIL) bad_syntax(x, "quasiquote");
      return at(analyze_quasiquote(cadr_(x), 1, sc), x);
    case SF_UNQUOTE: syntax_error(x, "unquote: not inside a quasiquote");
    case SF_UNQUOTE_SPLICING: syntax_error(x, "unquote-splicing: not inside a quasiquote");
    case SF_LAMBDA:
      if (!is_pair(cdr(x))) bad_syntax(x, "lambda");
      return at(new MakeClosure(analyze_lambda(cadr_(x), cddr_(x), sc, NOVALUE, x)), x);
    case SF_NAMED_LAMBDA:
      if (!is_pair(cdr(x)) || !is_pair(cadr_(x))) bad_syntax(x, "named-lambda");
      return at(new MakeClosure(analyze_lambda(cdr(cadr_(x)), cddr_(x), sc, car(cadr_(x)), x)), x);
    case SF_DEFINE: {
      Value name, vf, doc;
      parse_define(x, &name, &vf, &doc);
      if (sc) syntax_error(x, "define: only allowed at top level or at the start of a body");
      // The cell first: the value (a recursive procedure) may refer to it.
      Value cell = env_define_cell(unaliased(name));
      return at(new GlobalDefine(cell, analyze_named_value(vf, sc, name), doc), x);
    }
    case SF_SET:
      if (list_length(x) != 3 || !is_symbol(cadr_(x))) bad_syntax(x, "set!");
      return analyze_set(cadr_(x), analyze(car(cddr_(x)), sc, false), sc, x);
    case SF_IF: {
      int n = list_length(x);
      if (n != 3 && n != 4) bad_syntax(x, "if");
      Value r = cddr_(x);
      Node *els = n == 4 ? analyze(car(cdr(r)), sc, tail) : new Const(UNSPEC);
      return at(new If(analyze(cadr_(x), sc, false), analyze(car(r), sc, tail), els), x);
    }
    case SF_BEGIN: return analyze_seq(cdr(x), sc, tail, x);
    case SF_LET: return analyze_let(x, sc, tail, false);
    case SF_LETSTAR: return analyze_let_star(x, sc, tail);
    case SF_LETREC:
    case SF_LETREC_STAR: return analyze_let(x, sc, tail, true);
    case SF_COND:
      if (list_length(cdr(x)) < 0) bad_syntax(x, "cond");
      return analyze_cond_clauses(cdr(x), sc, tail, x, nullptr);
    case SF_CASE: return analyze_case(x, sc, tail);
    case SF_AND:
    case SF_OR: {
      bool is_and = special_of(x, sc) == SF_AND;
      int n = list_length(cdr(x));
      if (n < 0) bad_syntax(x, is_and ? "and" : "or");
      if (n == 0) return new Const(is_and ? TRUE_V : FALSE_V);
      if (n == 1) return analyze(cadr_(x), sc, tail);
      Node **items = node_array<Node>(n);
      int i = 0;
      for (Value p = cdr(x); is_pair(p); p = cdr(p), i++) items[i] = analyze(car(p), sc, tail && i == n - 1);
      if (is_and) return at(new And(items, n), x);
      return at(new Or(items, n), x);
    }
    case SF_WHEN:
    case SF_UNLESS: {
      if (!is_pair(cdr(x))) bad_syntax(x, symbol_name(head));
      Node *test = analyze(cadr_(x), sc, false);
      Node *body = analyze_seq(cddr_(x), sc, tail, x);
      if (special_of(x, sc) == SF_WHEN) return at(new If(test, body, new Const(UNSPEC)), x);
      return at(new If(test, new Const(UNSPEC), body), x);
    }
    case SF_DEFINE_SYNTAX: {
      if (list_length(x) != 3 || !is_symbol(cadr_(x))) bad_syntax(x, "define-syntax");
      if (sc) syntax_error(x, "define-syntax: only allowed at top level or at the start of a body");
      Value tr = eval_transformer(car(cddr_(x)), x, sc);
      sym(env_define_cell(unaliased(cadr_(x))))->global =
          make_macro(cadr_(x), tr, !is_syntax_rules(tr), nullptr);
      return new Const(UNSPEC);
    }
    case SF_LET_SYNTAX:
    case SF_LETREC_SYNTAX: {
      if (!is_pair(cdr(x)) || list_length(cadr_(x)) < 0) bad_syntax(x, "let-syntax");
      // let-syntax's templates mean what they mean outside it; letrec-syntax's
      // see its own macros too.
      OpenScope ms(sc);
      Scope *def_scope = special_of(x, sc) == SF_LETREC_SYNTAX ? static_cast<Scope *>(ms) : sc;
      for (Value p = cadr_(x); is_pair(p); p = cdr(p)) {
        Value b = car(p);
        if (list_length(b) != 2 || !is_symbol(car(b))) bad_syntax(x, "let-syntax");
        Value tr = eval_transformer(cadr_(b), x, sc);
        ms->bind_macro(car(b), make_macro(car(b), tr, !is_syntax_rules(tr), def_scope));
      }
      Node *body = analyze_body(cddr_(x), ms, tail, x);
      return new Let(nullptr, 0, int(ms->names.size()), ms->on_stack(), false, body);
    }
    case SF_DEFMACRO: {
      if (list_length(x) < 3 || !is_symbol(cadr_(x))) bad_syntax(x, "defmacro");
      if (sc) syntax_error(x, "defmacro: only allowed at top level or at the start of a body");
      Value name = cadr_(x);
      sym(env_define_cell(unaliased(name)))->global =
          make_macro(name, defmacro_transformer(car(cddr_(x)), cdr(cddr_(x)), name, x), false, nullptr);
      return new Const(UNSPEC);
    }
    case SF_DEFINE_MACRO: {
      if (list_length(x) < 3 || !is_pair(cadr_(x)) || !is_symbol(car(cadr_(x))))
        bad_syntax(x, "define-macro");
      if (sc) syntax_error(x, "define-macro: only allowed at top level or at the start of a body");
      Value name = car(cadr_(x));
      sym(env_define_cell(unaliased(name)))->global =
          make_macro(name, defmacro_transformer(cdr(cadr_(x)), cddr_(x), name, x), false, nullptr);
      return new Const(UNSPEC);
    }
    case SF_DEFINE_RECORD_TYPE: return analyze(expand_record_type_definition(x), sc, tail);
    case SF_GUARD: return analyze_guard(x, sc);
    case SF_INCLUDE: return analyze(include_forms(x, false), sc, tail);
    case SF_INCLUDE_CI: return analyze(include_forms(x, true), sc, tail);
    case SF_IMPORT:
      // Done now, while analysing: the forms after it are analysed in the
      // environment it makes (each top-level form is analysed just before it runs).
      if (sc) syntax_error(x, "import: only allowed at top level");
      if (list_length(cdr(x)) < 0) bad_syntax(x, "import");
      import_sets(cdr(x), x);
      return new Const(UNSPEC);
    case SF_DEFINE_LIBRARY:
      if (sc) syntax_error(x, "define-library: only allowed at top level");
      define_library(x);
      return new Const(UNSPEC);
    case SF_SYNTAX_ERROR:
      // R7RS 4.3.3: the error is raised when the form is expanded, so a macro
      // can reject a bad use before anything runs.
      if (!is_pair(cdr(x)) || !is_string(cadr_(x)) || list_length(x) < 0)
        syntax_error(x, "syntax-error: the message must be a string");
      throw_error_at(loc_of(x), string_view_of(cadr_(x)), cddr_(x));
    }
  }
  return analyze_call(x, sc, tail);
}

// ---- entry points --------------------------------------------------------------

void init_special_forms() {
  static const struct {
    const char *name;
    Special id;
  } table[] = {{"quote", SF_QUOTE},
               {"quasiquote", SF_QUASIQUOTE},
               {"unquote", SF_UNQUOTE},
               {"unquote-splicing", SF_UNQUOTE_SPLICING},
               {"lambda", SF_LAMBDA},
               {"named-lambda", SF_NAMED_LAMBDA},
               {"define", SF_DEFINE},
               {"set!", SF_SET},
               {"if", SF_IF},
               {"begin", SF_BEGIN},
               {"let", SF_LET},
               {"let*", SF_LETSTAR},
               {"letrec", SF_LETREC},
               {"letrec*", SF_LETREC_STAR},
               {"cond", SF_COND},
               {"case", SF_CASE},
               {"and", SF_AND},
               {"or", SF_OR},
               {"when", SF_WHEN},
               {"unless", SF_UNLESS},
               {"define-syntax", SF_DEFINE_SYNTAX},
               {"let-syntax", SF_LET_SYNTAX},
               {"letrec-syntax", SF_LETREC_SYNTAX},
               {"defmacro", SF_DEFMACRO},
               {"define-macro", SF_DEFINE_MACRO},
               {"define-record-type", SF_DEFINE_RECORD_TYPE},
               {"guard", SF_GUARD},
               {"include", SF_INCLUDE},
               {"include-ci", SF_INCLUDE_CI},
               {"import", SF_IMPORT},
               {"define-library", SF_DEFINE_LIBRARY},
               {"syntax-error", SF_SYNTAX_ERROR}};
  for (auto &e : table) sym(intern(e.name))->special = e.id;
}

bool is_special_form_name(Value s) { return is_symbol(s) && sym(s)->special != 0; }

}  // namespace kiln

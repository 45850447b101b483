// macro_expand.cpp — using macros: one-step expansion of a macro use,
// making macro objects from define-syntax / let-syntax / defmacro, macroexpand,
// and the define-record-type hook. Matching and rewriting syntax-rules
// templates is syntax_rules.cpp's.
//
// Invariant: expansion is one step at a time, and the analyser expands again
// until the head is no macro (analyze, flatten_body, eval_toplevel), so every
// step polls for Ctrl-C and a macro that expands into itself forever can be
// stopped. An expansion's new pairs carry the location of the use they replace.
#include "runtime/analyze_internal.h"
#include "runtime/library.h"

namespace kiln {

// Gives expansion results the location of the form they replaced.
static void inherit_loc(Value x, SrcLoc loc, int budget = 10000) {
  while (is_pair(x) && budget-- > 0) {
    Pair *p = as<Pair>(x);
    if (p->h.line != 0) return;
    set_loc(x, loc);
    if (is_pair(p->car)) inherit_loc(p->car, loc, budget / 2);
    x = p->cdr;
  }
}

// `sc`: the scope of the use.
static Value expand_macro(Value macro, Value form, Scope *sc) {
  check_interrupt();  // (define-syntax m (syntax-rules () ((_) (m)))) expands forever
  Macro *m = as<Macro>(macro);
  Value result;
  if (is_syntax_rules(m->transformer)) {
    Scope *def_scope = static_cast<Scope *>(m->def_scope);
    void *def_env = m->def_env;
    MacroUseSite site;
    site.def_scope = def_scope;
    site.def_env = def_env;
    site.in_body = sc != nullptr;
    site.keeps_meaning = [&](Value id) { return same_binding(id, sc, id, def_scope, def_env); };
    site.matches_literal = [&](Value id, Value lit) { return same_binding(id, sc, lit, def_scope, def_env); };
    try {
      result = expand_syntax_rules(m->transformer, form, site);
    } catch (LispError &e) {
      if (!e.loc.known()) e.loc = loc_of(form);  // a bad template: report it at the use
      throw;
    }
  } else if (m->whole_form == TRUE_V) {
    result = apply_proc(m->transformer, 1, &form);
  } else {
    int n = list_length(cdr(form));
    if (n < 0) bad_syntax(form, symbol_name(m->name));
    Value *argv = static_cast<Value *>(alloca(sizeof(Value) * size_t(n ? n : 1)));
    int i = 0;
    for (Value p = cdr(form); is_pair(p); p = cdr(p)) argv[i++] = car(p);
    result = apply_proc(m->transformer, n, argv);
  }
  inherit_loc(result, loc_of(form));
  return result;
}

Value macro_step(Value x, Scope *sc) {
  if (!is_pair(x) || !is_symbol(car(x))) return NOVALUE;
  Lookup l = lookup(car(x), sc);
  if (l.kind == Lookup::MACRO) return expand_macro(l.macro, x, sc);
  if (l.kind != Lookup::GLOBAL) return NOVALUE;
  Value global = sym(global_cell(car(x)))->global;
  if (has_type(global, T_MACRO)) return expand_macro(global, x, sc);
  return NOVALUE;
}

Value make_macro(Value name, Value transformer, bool whole_form, Scope *def_scope) {
  Macro *m = alloc_obj<Macro>(T_MACRO);
  m->name = name;
  m->transformer = transformer;
  m->whole_form = whole_form ? TRUE_V : NOVALUE;
  m->def_scope = def_scope;
  m->def_env = g_env;
  return from_ptr(m);
}

bool names_syntax_rules(Value x) {
  if (!is_symbol(x)) return false;
  Value sr = intern("syntax-rules");
  return unaliased(x) == sr || global_cell(x) == sr;
}

Value eval_transformer(Value spec, Value form, Scope *sc) {
  if (is_pair(spec) && names_syntax_rules(car(spec))) return make_syntax_rules(spec, form);
  // Any other expression must evaluate to a procedure taking the whole form.
  Node *n = analyze(spec, sc, false);
  Value f = n->eval(nullptr);
  if (!is_procedure(f)) syntax_error(form, "define-syntax: transformer must be syntax-rules or a procedure");
  return f;
}

// (defmacro name (params...) body...) / (define-macro (name . params) body...)
Value defmacro_transformer(Value params, Value body, Value name, Value form) {
  Lambda *L = analyze_lambda(params, body, nullptr, name, form);
  Closure *c = alloc_obj<Closure>(T_CLOSURE);
  c->lam = L;
  c->env = nullptr;
  c->next_case = NOVALUE;
  return from_ptr(c);
}

// ---- define-record-type ------------------------------------------------------

// Set by the library that defines records (stdlib/records.cpp).
static Value (*g_record_type_expander)(Value form) = nullptr;
void set_define_record_type_expander(Value (*expand)(Value form)) { g_record_type_expander = expand; }

Value expand_record_type_definition(Value form) {
  if (!g_record_type_expander) throw_error("define-record-type: records are not available");
  return g_record_type_expander(form);
}

Value macroexpand(Value form) {
  for (;;) {
    Value e = macro_step(form, nullptr);
    if (e == NOVALUE) return form;
    form = e;
  }
}

}  // namespace kiln

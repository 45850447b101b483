// analyze_internal.h — what the analyser's pieces share: scopes, lookup,
// special-form ids, syntax errors and the entry points each piece offers the
// others (analyze.cpp: special forms and bodies; quasiquote.cpp; macro_expand.cpp;
// eval_toplevel in eval.cpp). Nothing outside those files includes it.
//
// Invariant: a Scope is open (an OpenScope is alive) exactly while the code
// inside it is being analysed, and every name an open scope binds, as a
// variable or a macro, counts in its symbol's scope_bindings. The scopes of
// any chain being analysed are all open, so the count is positive for every
// name some scope of the chain binds, and a name whose count is zero (a global
// or a special form's keyword: most lookups) is global without walking the
// chain (docs/performance.md, "Analysis").
//
// Scope == nullptr means top level. Analysis recurses on the nesting of its
// input and calls check_stack() at each level (eval_internal.h).
#pragma once
#include <string_view>

#include "runtime/args.h"
#include "runtime/nodes.h"
#include "runtime/srcloc.h"

namespace kiln {

enum Special : uint32_t {
  SF_NONE = 0,
  SF_QUOTE,
  SF_QUASIQUOTE,
  SF_UNQUOTE,
  SF_UNQUOTE_SPLICING,
  SF_LAMBDA,
  SF_NAMED_LAMBDA,
  SF_DEFINE,
  SF_SET,
  SF_IF,
  SF_BEGIN,
  SF_LET,
  SF_LETSTAR,
  SF_LETREC,
  SF_LETREC_STAR,
  SF_COND,
  SF_CASE,
  SF_AND,
  SF_OR,
  SF_WHEN,
  SF_UNLESS,
  SF_DEFINE_SYNTAX,
  SF_LET_SYNTAX,
  SF_LETREC_SYNTAX,
  SF_DEFMACRO,
  SF_DEFINE_MACRO,
  SF_DEFINE_RECORD_TYPE,
  SF_GUARD,
  SF_INCLUDE,
  SF_INCLUDE_CI,
  SF_IMPORT,
  SF_DEFINE_LIBRARY,
  SF_SYNTAX_ERROR,
};

// ---- scopes ------------------------------------------------------------

struct Scope : public GcManaged {
  Scope *parent = nullptr;
  bool is_function = false;
  bool captured = false;  // a lambda expression appears in this frame's extent
  // A set! assigns one of this frame's variables. Such a frame is not put on
  // the C++ stack either: a re-entered continuation reinstates the stack as it
  // was at the capture, and the variable must keep its latest value
  // (continuation.h). Internal defines do not count: they run once, in order.
  bool assigned = false;
  bool on_stack() const { return !captured && !assigned; }
  GcVec<Value> names;
  GcVec<Value> macro_names;
  GcVec<Value> macros;
  int find(Value s) const {
    for (int i = int(names.size()) - 1; i >= 0; i--)
      if (names[size_t(i)] == s) return i;
    return -1;
  }
  void bind(Value s) {
    names.push_back(s);
    sym(s)->scope_bindings++;
  }
  void bind_macro(Value s, Value macro) {
    macro_names.push_back(s);
    macros.push_back(macro);
    sym(s)->scope_bindings++;
  }
  int add(Value s) {
    int i = find(s);
    if (i >= 0) return i;
    bind(s);
    return int(names.size()) - 1;
  }
};

// Makes a new scope under `parent` and keeps it open for its own lifetime,
// error or not.
class OpenScope {
 public:
  explicit OpenScope(Scope *parent, bool is_function = false) : sc_(new Scope()) {
    sc_->parent = parent;
    sc_->is_function = is_function;
  }
  OpenScope(const OpenScope &) = delete;
  OpenScope &operator=(const OpenScope &) = delete;
  ~OpenScope() {
    for (Value s : sc_->names) sym(s)->scope_bindings--;
    for (Value s : sc_->macro_names) sym(s)->scope_bindings--;
  }
  Scope *operator->() const { return sc_; }
  operator Scope *() const { return sc_; }

 private:
  Scope *sc_;
};

struct Lookup {
  enum Kind { GLOBAL, LOCAL, MACRO } kind = GLOBAL;
  int depth = 0, idx = 0;
  Value macro = NOVALUE;
  Scope *scope = nullptr;  // the scope that binds it (LOCAL, MACRO)
};

// The walk for a name some open scope binds, or for an alias (syntax_rules.cpp):
// an alias the expansion bound itself is that binding; otherwise it means what
// the name it stands for means where its macro was defined.
Lookup lookup_scoped(Value s, Scope *sc);

inline Lookup lookup(Value s, Scope *sc) {
  if (sym(s)->scope_bindings == 0 && sym(s)->alias_of == NOVALUE) return Lookup{};
  return lookup_scoped(s, sc);
}

// The global variable (its value cell, a symbol) a name with a GLOBAL lookup
// names in the current top-level environment (library.h); for an alias, in
// the environment of its macro's definition.
Value global_cell(Value s);
// Whether a top-level name means a variable a user library defines, reached
// through an import: R7RS makes assigning it an error, and Kiln reports it.
bool is_imported_library_variable(Value s);
// Whether identifier a in scope sa (current environment) and identifier b as
// seen by a macro defined in scope sb and environment envb have one binding
// (R7RS free-identifier=?, used for syntax-rules literals and hygiene).
bool same_binding(Value a, Scope *sa, Value b, Scope *sb, void *envb);

// ---- errors ------------------------------------------------------------

[[noreturn]] void syntax_error(Value form, std::string_view what);
// "NAME: bad syntax in FORM", the form cut to fit a line.
[[noreturn]] void bad_syntax(Value form, std::string_view name);

// ---- helpers -------------------------------------------------------------

template <class T> T **node_array(int n) {
  return static_cast<T **>(gc_alloc(sizeof(T *) * size_t(n ? n : 1)));
}

// Gives a node the source location of the form it was made from.
template <class N> N *at(N *node, Value form) {
  node->loc = loc_of(form);
  return node;
}

// Checked: a form whose shape a caller forgot to validate gives a syntax error
// naming the part that is too short, never a read through a non-pair.
[[noreturn]] void form_too_short(Value part);
inline Value cadr_(Value v) {
  if (!is_pair(v) || !is_pair(cdr(v))) form_too_short(v);
  return car(cdr(v));
}
inline Value cddr_(Value v) {
  if (!is_pair(v) || !is_pair(cdr(v))) form_too_short(v);
  return cdr(cdr(v));
}

// ---- analyze.cpp ---------------------------------------------------------

Node *analyze(Value x, Scope *sc, bool tail);
// The special form x is in scope sc (SF_NONE if its head is shadowed or a macro).
uint32_t special_of(Value x, Scope *sc);
Lambda *analyze_lambda(Value params, Value body, Scope *sc, Value name, Value form);

// ---- quasiquote.cpp ------------------------------------------------------

// The node building the quasiquoted datum x, at quasiquote nesting `depth` (1
// for the outermost).
Node *analyze_quasiquote(Value x, int depth, Scope *sc);

// ---- macro_expand.cpp ----------------------------------------------------

// If x is a macro use in scope sc, its one-step expansion, else NOVALUE.
Value macro_step(Value x, Scope *sc);
// whole_form: the transformer takes the whole form (define-syntax with a
// procedure); otherwise it takes the operands (defmacro) or is syntax-rules.
// def_scope: where it is defined (null: top level); the environment is the current one.
Value make_macro(Value name, Value transformer, bool whole_form, Scope *def_scope);
// The transformer of define-syntax / let-syntax: (syntax-rules ...) or an
// expression evaluating to a procedure of the whole form.
Value eval_transformer(Value spec, Value form, Scope *sc);
// defmacro / define-macro: a closure of the parameters over the body.
Value defmacro_transformer(Value params, Value body, Value name, Value form);
// Through the records library's expander (set_define_record_type_expander).
Value expand_record_type_definition(Value form);

}  // namespace kiln

// bindings.cpp — what an identifier is bound to while a form is analysed:
// the scope walk for locally bound names and syntax-rules aliases, the global
// cell of a top-level name, and binding identity (free-identifier=?).
//
// Invariant: see analyze_internal.h (open scopes) and library.h (cells). An
// alias's definition scope is an ancestor of every scope its expansion is
// analysed in, since a local macro is only visible inside its own scope; if
// it is not on the chain (an expansion kept and analysed elsewhere, e.g. by
// eval), the alias falls back to its name's global meaning.
#include "runtime/analyze_internal.h"
#include "runtime/hashtable.h"
#include "runtime/library.h"

namespace kiln {

Lookup lookup_scoped(Value s, Scope *sc) {
  Symbol *y = sym(s);
  if (y->scope_bindings > 0) {
    int depth = 0;
    for (Scope *p = sc; p; p = p->parent, depth++) {
      for (int i = int(p->macro_names.size()) - 1; i >= 0; i--)
        if (p->macro_names[size_t(i)] == s) {
          // A variable bound later in the same scope shadows nothing here; macros
          // and variables share one namespace per scope, newest wins.
          if (p->find(s) < 0) return Lookup{Lookup::MACRO, depth, 0, p->macros[size_t(i)], p};
        }
      int i = p->find(s);
      if (i >= 0) return Lookup{Lookup::LOCAL, depth, i, NOVALUE, p};
    }
  }
  if (y->alias_of == NOVALUE) return Lookup{};
  Scope *def = static_cast<Scope *>(y->alias_scope);
  if (!def) return Lookup{};
  int depth = 0;
  Scope *p = sc;
  for (; p && p != def; p = p->parent) depth++;
  if (!p) return Lookup{};
  Lookup l = lookup(y->alias_of, def);
  if (l.kind != Lookup::GLOBAL) l.depth += depth;
  return l;
}

// The innermost alias's environment is where the name was written.
static Value global_cell_in(Value s, TopEnv *env) {
  while (is_symbol(s) && sym(s)->alias_of != NOVALUE) {
    env = static_cast<TopEnv *>(sym(s)->alias_env);
    s = sym(s)->alias_of;
  }
  return env_cell(env, s);
}

Value global_cell(Value s) { return global_cell_in(s, g_env); }

bool is_imported_library_variable(Value s) {
  TopEnv *env = g_env;
  while (is_symbol(s) && sym(s)->alias_of != NOVALUE) {
    env = static_cast<TopEnv *>(sym(s)->alias_env);
    s = sym(s)->alias_of;
  }
  Value cell;
  if (!env || hashtable_lookup(env->own, s, &cell) || !hashtable_lookup(env->imports, s, &cell)) return false;
  return !(sym(cell)->h.flags & SYM_INTERNED);
}

bool same_binding(Value a, Scope *sa, Value b, Scope *sb, void *envb) {
  Lookup la = lookup(a, sa), lb = lookup(b, sb);
  if (la.kind != lb.kind) return false;
  switch (la.kind) {
  case Lookup::LOCAL: return la.scope == lb.scope && la.idx == lb.idx;
  case Lookup::MACRO: return la.macro == lb.macro;
  case Lookup::GLOBAL: break;
  }
  // `b` as the macro's definition saw it: a plain name there is resolved in
  // the definition's environment.
  return global_cell(a) == global_cell_in(b, static_cast<TopEnv *>(envb));
}

}  // namespace kiln

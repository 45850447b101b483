// library_env.cpp — top-level environments: which cell a top-level name
// means in a library's or the importing program's environment.
//
// Invariant: see library.h. An environment's tables are only read while
// forms are analysed, and only grow (or, for the program, lose an import
// its own definition replaces).
#include "runtime/hashtable.h"
#include "runtime/library.h"

namespace kiln {

TopEnv *g_env = nullptr;

Value env_cell(TopEnv *env, Value name) {
  if (!env) return name;
  Value cell;
  if (hashtable_lookup(env->own, name, &cell)) return cell;
  if (hashtable_lookup(env->imports, name, &cell)) return cell;
  return name;
}

static Value private_cell(TopEnv *env, Value name) {
  Value cell = gensym(symbol_name(name));
  sym(cell)->name = sym(name)->name;  // errors and ,describe show the name as written
  hashtable_set(env->own, name, cell);
  return cell;
}

Value env_define_cell(Value name) {
  TopEnv *env = g_env;
  if (!env) return name;
  Value cell;
  if (hashtable_lookup(env->own, name, &cell)) return cell;
  if (env->is_library) return private_cell(env, name);
  // The program: its definitions are the interned symbols, except where that
  // would replace one of Kiln's builtins or macros under the code that uses it.
  hashtable_delete(env->imports, name);
  Value v = sym(name)->global;
  if (is_builtin(v) || has_type(v, T_MACRO)) return private_cell(env, name);
  return name;
}

}  // namespace kiln

// test_library_env.cpp — top-level environments (runtime/library_env.cpp):
// which cell a name means in a library's and in an importing program's
// environment, and that definitions get private cells where library.h says.
#include <catch2/catch.hpp>

#include "runtime/analyze_internal.h"
#include "runtime/args.h"
#include "runtime/eval.h"
#include "runtime/hashtable.h"
#include "runtime/library.h"
#include "runtime/printer.h"

using namespace kiln;

namespace {

TopEnv *make_env(bool is_library) {
  TopEnv *e = static_cast<TopEnv *>(gc_alloc(sizeof(TopEnv)));
  e->own = make_hashtable(HASH_EQ);
  e->imports = make_hashtable(HASH_EQ);
  e->name = NIL;
  e->is_library = is_library;
  return e;
}

struct WithEnv {
  TopEnv *saved;
  explicit WithEnv(TopEnv *e) : saved(g_env) { g_env = e; }
  ~WithEnv() { g_env = saved; }
};

}  // namespace

TEST_CASE("library env: no environment means the interned symbols", "[library]") {
  Value s = intern("libenv-plain");
  CHECK(env_cell(nullptr, s) == s);
  WithEnv w(nullptr);
  CHECK(env_define_cell(s) == s);
}

TEST_CASE("library env: a library's definitions are private cells named as written", "[library]") {
  TopEnv *lib = make_env(true);
  WithEnv w(lib);
  Value s = intern("libenv-helper");
  Value cell = env_define_cell(s);
  CHECK(cell != s);
  CHECK(write_string(cell) == "libenv-helper");
  CHECK(env_define_cell(s) == cell);  // one cell per name
  CHECK(env_cell(lib, s) == cell);
  // A name it neither defines nor imports is the interned symbol (builtins).
  CHECK(env_cell(lib, intern("car")) == intern("car"));
  // Imports are looked up after its own names.
  Value other = intern("libenv-imported");
  Value imported_cell = gensym("cell");
  hashtable_set(lib->imports, other, imported_cell);
  CHECK(env_cell(lib, other) == imported_cell);
}

TEST_CASE("library env: an importing program keeps interned cells except over builtins", "[library]") {
  TopEnv *prog = make_env(false);
  WithEnv w(prog);
  Value mine = intern("libenv-program-name");
  hashtable_set(prog->imports, mine, gensym("from-library"));
  // Its own definition replaces the import and is the interned symbol.
  CHECK(env_define_cell(mine) == mine);
  CHECK(env_cell(prog, mine) == mine);
  // Defining a builtin's name does not overwrite the builtin.
  Value car_cell = env_define_cell(intern("car"));
  CHECK(car_cell != intern("car"));
  CHECK(env_cell(prog, intern("car")) == car_cell);
}

TEST_CASE("library env: only a user library's imported variable is read-only", "[library]") {
  TopEnv *prog = make_env(false);
  WithEnv w(prog);
  Value from_lib = intern("libenv-counter");
  hashtable_set(prog->imports, from_lib, gensym("libenv-counter"));  // a library's private cell
  Value standard = intern("libenv-standard");
  hashtable_set(prog->imports, standard, standard);  // a standard library's name: the interned cell
  CHECK(is_imported_library_variable(from_lib));
  CHECK_FALSE(is_imported_library_variable(standard));
  CHECK_FALSE(is_imported_library_variable(intern("libenv-unknown")));
  // The program's own definition replaces the import.
  env_define_cell(from_lib);
  CHECK_FALSE(is_imported_library_variable(from_lib));
}

TEST_CASE("library env: environment of import sets", "[library]") {
  eval_string(
      "(define-library (libenv demo) (export shown) (import (scheme base))"
      " (begin (define shown 1) (define hidden 2)))",
      "libenv-test");
  Value name[2] = {intern("libenv"), intern("demo")};
  Value set = list_from(name, 2);
  TopEnv *env = make_import_environment(list_from(&set, 1));
  Value shown = env_cell(env, intern("shown"));
  CHECK(shown != intern("shown"));
  CHECK(sym(shown)->global == make_int(1));
  CHECK(env_cell(env, intern("hidden")) == intern("hidden"));  // not exported: the plain global
}

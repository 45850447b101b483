// library.h — R7RS libraries: top-level environments, define-library, import,
// the load path and the standard (scheme ...) libraries (docs/language.md,
// "Libraries").
//
// Invariant: a global variable is a value cell, and a cell is a symbol (its
// `global` slot), so a node that names a global runs the same whichever
// environment it was analysed in. The program's own cells are the interned
// symbols (every builtin is one); a library's own definitions get uninterned
// cells private to it, so libraries cannot clash with each other or with the
// program, and so does a definition by an importing program of a name that
// is a builtin or macro (so it cannot break Kiln's own Lisp code or another
// library). An environment maps a name to a cell only where it differs from
// the interned symbol: such own names, and imports that are renamed, prefixed
// or come from a user library. Every other name means the interned symbol:
// Kiln's builtins are visible everywhere (lenient; see the docs).
// Resolution happens while a form is analysed, never while it runs.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/object.h"

namespace kiln {

struct TopEnv {
  Value own;      // eq hashtable: name -> a cell private to this environment
  Value imports;  // eq hashtable: name -> imported cell
  Value name;     // the library's name (a list), or NIL for the program
  bool is_library;
};

// The environment top-level names are resolved in now: a library's while its
// body is analysed; otherwise the program's (null until its first import).
extern TopEnv *g_env;

// The cell `name` (not an alias) refers to in env.
Value env_cell(TopEnv *env, Value name);
// The cell a top-level definition of `name` in the current environment sets.
Value env_define_cell(Value name);

// Runs the import set specs of (import SPEC...) into the current environment;
// `form` is for error locations and the importing file's directory.
void import_sets(Value specs, Value form);
// The environment of (environment SET...): the import sets' bindings, its
// own definitions private to it; errors are reported without a location.
TopEnv *make_import_environment(Value specs);
// In the program's environment (after its first import): creates the cells of
// the names the top-level forms of `text` define, before they run, so that a
// procedure may call a builtin's name the program defines further down.
void predeclare_program_definitions(std::string_view text, uint32_t file_id);
// The program's environment (for interaction-environment); null until the
// program's first import, which is what g_env is then too.
TopEnv *program_env();
// (define-library NAME DECL...): registers and instantiates the library.
void define_library(Value form);
// Whether (library NAME) in cond-expand holds: the library is defined or a
// file for it is on the load path.
bool library_available(Value name);
// cond-expand's feature requirement (and/or/not/library/feature names).
bool feature_requirement_holds(Value req);
// The feature identifiers, as `(features)` returns them.
Value feature_list();

// The forms of an included file. A relative path is taken relative to the
// directory of the file `form` came from, or as given if no file is there
// (the working directory, as include always did); fold_case: include-ci.
Value read_included_file(const std::string &path, Value form, bool fold_case, const char *who);

// The load path after the importing file's directory: KILN_LOAD_PATH's
// directories, then each -L DIR in order (repl/main.cpp adds them).
void add_load_path_dir(const std::string &dir);
std::vector<std::string> load_path_dirs();

}  // namespace kiln

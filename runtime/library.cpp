// library.cpp — define-library, import sets, finding .sld files on the load
// path, the standard libraries and cond-expand's features.
//
// Invariant: see library.h. A library is registered only after its body ran
// and its exports were checked, so a failed load leaves nothing behind and
// may be retried; `g_loading` holds the libraries being loaded, innermost
// last, so a library that imports itself (directly or not) is an error, not
// a recursion. Every change to g_env and the loading stacks is undone by a
// guard on the C++ stack, error or not.
#include "runtime/library.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "runtime/analyze_internal.h"
#include "runtime/args.h"
#include "runtime/continuation.h"
#include "runtime/eval.h"
#include "runtime/eval_internal.h"
#include "runtime/handlers.h"
#include "runtime/hashtable.h"
#include "runtime/printer.h"
#include "runtime/reader.h"
#include "runtime/srcloc.h"
#include "runtime/standard_libraries.h"

namespace kiln {

namespace {

namespace fs = std::filesystem;

// Written library name ("(foo bar)") -> (name . exports); exports is an eq
// hashtable from exported name to cell, in export order.
Value g_libraries = NOVALUE;
TopEnv *g_program_env = nullptr;
std::vector<std::string> g_loading;        // written names of libraries being loaded
std::vector<std::string> g_library_roots;  // DIR of each DIR/foo/bar.sld being loaded
std::vector<std::string> g_cli_dirs;       // -L DIR, in order

Value registry() {
  if (g_libraries == NOVALUE) g_libraries = make_hashtable(HASH_EQUAL);
  return g_libraries;
}

TopEnv *new_env(Value name, bool is_library) {
  TopEnv *e = static_cast<TopEnv *>(gc_alloc(sizeof(TopEnv)));
  e->own = make_hashtable(HASH_EQ);
  e->is_library = is_library;
  e->imports = make_hashtable(HASH_EQ);
  e->name = name;
  return e;
}

// Restores g_env when a library's declarations or body are done.
struct EnvGuard {
  TopEnv *saved;
  explicit EnvGuard(TopEnv *env) : saved(g_env) { g_env = env; }
  ~EnvGuard() { g_env = saved; }
  EnvGuard(const EnvGuard &) = delete;
  EnvGuard &operator=(const EnvGuard &) = delete;
};

bool is_name_part(Value v) { return is_symbol(v) || (is_int(v) && int_of(v) >= 0); }

bool is_library_name(Value name) {
  if (!is_pair(name) || list_length(name) < 0) return false;
  for (Value p = name; is_pair(p); p = cdr(p))
    if (!is_name_part(car(p))) return false;
  return true;
}

std::string part_text(Value v) {
  return is_symbol(v) ? std::string(symbol_name(v)) : std::to_string(int_of(v));
}

// "(foo bar)"
std::string written_name(Value name) {
  std::string s = "(";
  for (Value p = name; is_pair(p); p = cdr(p)) {
    if (p != name) s += ' ';
    s += part_text(car(p));
  }
  return s + ")";
}

// "foo/bar.sld"
std::string relative_file(Value name) {
  std::string s;
  for (Value p = name; is_pair(p); p = cdr(p)) {
    if (!s.empty()) s += '/';
    s += part_text(car(p));
  }
  return s + ".sld";
}

std::string dir_of_file(const std::string &file) {
  if (file.empty() || file[0] == '<') return ".";
  std::string d = fs::path(file).parent_path().string();
  return d.empty() ? "." : d;
}

std::string dir_of_form(Value form) {
  SrcLoc loc = loc_of(form);
  return loc.file ? dir_of_file(source_file_name(loc.file)) : ".";
}

// Where (import NAME) looks, in order (docs/language.md, "Libraries").
std::vector<std::string> search_dirs(const std::string &importer_dir) {
  std::vector<std::string> dirs{importer_dir};
  for (auto it = g_library_roots.rbegin(); it != g_library_roots.rend(); ++it) dirs.push_back(*it);
  for (const std::string &d : load_path_dirs()) dirs.push_back(d);
  std::vector<std::string> unique;
  for (const std::string &d : dirs) {
    bool seen = false;
    for (const std::string &u : unique) seen = seen || u == d;
    if (!seen) unique.push_back(d);
  }
  return unique;
}

std::string join_path(const std::string &dir, const std::string &rel) {
  if (dir == ".") return rel;
  return dir.back() == '/' ? dir + rel : dir + "/" + rel;
}

// syntax-rules is not a special form (define-syntax and let-syntax look for
// it), but it is exported, renamed and prefixed like one.
bool is_aux_syntax(std::string_view n) {
  return n == "else" || n == "=>" || n == "..." || n == "_" || n == "syntax-rules";
}

// A name a library may export: defined, a special form or auxiliary syntax.
bool is_bound_cell(Value cell) {
  Symbol *s = sym(cell);
  return s->global != NOVALUE || s->special != 0 ||
         ((s->h.flags & SYM_INTERNED) && is_aux_syntax(symbol_name(cell)));
}

Value register_library(Value name, Value exports) {
  Value entry = cons(name, exports);
  hashtable_set(registry(), make_string(written_name(name)), entry);
  return entry;
}

Value find_registered(Value name) {
  Value entry;
  if (hashtable_lookup(registry(), make_string(written_name(name)), &entry)) return entry;
  return NOVALUE;
}

// The standard libraries are registered on first use, from the names Kiln has then.
Value standard_library(Value name) {
  std::string w = written_name(name);
  const char *list = standard_library_exports(std::string_view(w).substr(1, w.size() - 2));
  if (!list) return NOVALUE;
  Value exports = make_hashtable(HASH_EQ);
  std::string_view rest(list);
  while (!rest.empty()) {
    size_t sp = rest.find(' ');
    Value s = intern(rest.substr(0, sp));
    if (is_bound_cell(s)) hashtable_set(exports, s, s);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  return register_library(name, exports);
}

// (kiln): every global defined now and every special form, under its own name.
Value kiln_library() {
  Value exports = make_hashtable(HASH_EQ);
  for_each_symbol([&](Value s) {
    if (sym(s)->global != NOVALUE || sym(s)->special != 0) hashtable_set(exports, s, s);
  });
  return cons(cons(intern("kiln"), NIL), exports);
}

bool is_kiln_library(Value name) { return is_pair(name) && car(name) == intern("kiln") && cdr(name) == NIL; }

void fold_case_in_place(Value *x) {
  check_stack();
  if (is_symbol(*x)) {
    std::string n(symbol_name(*x));
    for (char &c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
    *x = intern(n);
  } else if (is_pair(*x)) {
    for (Value p = *x; is_pair(p); p = cdr(p)) {
      fold_case_in_place(&as<Pair>(p)->car);
      if (!is_pair(cdr(p)) && cdr(p) != NIL) fold_case_in_place(&as<Pair>(p)->cdr);
    }
  } else if (is_vector(*x)) {
    Vector *v = as<Vector>(*x);
    for (int64_t i = 0; i < v->len; i++) fold_case_in_place(&v->items[i]);
  }
}

// The forms of an included file, as a list; a relative path is relative to `dir`.
Value read_included(const std::string &path, const std::string &dir, bool fold, Value form, const char *who) {
  std::string full = fs::path(path).is_absolute() ? path : join_path(dir, path);
  std::error_code ec;
  if (!fs::exists(full, ec) && fs::exists(path, ec)) full = path;
  std::string text;
  if (!read_file_text(full, &text))
    throw_error_at(loc_of(form), fmt::format("{}: cannot open {}", who, full));
  Value forms = read_all(text, register_source_file(full));
  if (fold) fold_case_in_place(&forms);
  return forms;
}

// Loads the .sld file for `name` unless the library is known; returns its entry.
Value load_library(Value name, Value form) {
  if (!is_library_name(name))
    throw_error_at(loc_of(form), fmt::format("import: bad library name {}", error_value_string(name)));
  if (is_kiln_library(name)) return kiln_library();
  Value entry = find_registered(name);
  if (entry != NOVALUE) return entry;
  entry = standard_library(name);
  if (entry != NOVALUE) return entry;
  std::string w = written_name(name);
  for (size_t i = 0; i < g_loading.size(); i++)
    if (g_loading[i] == w) {
      std::string chain;
      for (size_t j = i; j < g_loading.size(); j++) chain += g_loading[j] + " -> ";
      throw_error_at(loc_of(form), fmt::format("import: cyclic import: {}{}", chain, w));
    }
  std::string rel = relative_file(name), file, root;
  std::vector<std::string> dirs = search_dirs(dir_of_form(form));
  for (const std::string &d : dirs) {
    std::string candidate = join_path(d, rel);
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) {
      file = candidate;
      root = d;
      break;
    }
  }
  if (file.empty()) {
    std::string searched;
    for (const std::string &d : dirs) searched += (searched.empty() ? "" : ", ") + join_path(d, rel);
    throw_error_at(loc_of(form), fmt::format("import: unknown library {} (searched {})", w, searched));
  }
  std::string text;
  if (!read_file_text(file, &text)) throw_error_at(loc_of(form), fmt::format("import: cannot open {}", file));
  {
    struct Loading {
      Loading(const std::string &w, const std::string &root) {
        g_loading.push_back(w);
        g_library_roots.push_back(root);
      }
      ~Loading() {
        g_loading.pop_back();
        g_library_roots.pop_back();
      }
    } loading(w, root);
    // This frame holds C++ state (the text, the loading stacks) that a
    // continuation copy could not resume, and a jump over it would leave the
    // stacks and g_env behind: continuations captured while a library loads
    // are escape-only, and escapes out of it unwind (continuation.h).
    BarrierScope barrier(g_site, "a library being loaded");
    EnvGuard env(nullptr);
    for (Value p = read_all(text, register_source_file(file)); is_pair(p); p = cdr(p)) eval_toplevel(car(p));
  }
  entry = find_registered(name);
  if (entry == NOVALUE)
    throw_error_at(loc_of(form), fmt::format("import: {} does not define library {}", file, w));
  return entry;
}

// An import set's bindings: a list of (name . cell).
Value import_set(Value spec, Value form, std::string *lib, int depth) {
  if (depth > 1000) throw_error_at(loc_of(form), "import: import set nested too deeply");
  if (is_pair(spec) && is_symbol(car(spec)) && is_pair(cdr(spec)) && is_pair(car(cdr(spec)))) {
    std::string_view op = symbol_name(car(spec));
    bool only = op == "only", except = op == "except", prefix = op == "prefix", rename = op == "rename";
    if (only || except || prefix || rename) {
      Value base = import_set(car(cdr(spec)), form, lib, depth + 1);
      Value args = cdr(cdr(spec));
      if (list_length(args) < 0)
        throw_error_at(loc_of(form), fmt::format("import: bad {} in {}", op, error_value_string(spec)));
      auto find = [&](Value id) -> Value {
        for (Value p = base; is_pair(p); p = cdr(p))
          if (car(car(p)) == id) return car(p);
        throw_error_at(
            loc_of(form),
            fmt::format("import: {}: {} is not among the names imported from {}", op,
                        is_symbol(id) ? std::string(symbol_name(id)) : error_value_string(id), *lib));
      };
      Value out = NIL;
      if (only) {
        for (Value p = args; is_pair(p); p = cdr(p)) out = cons(find(car(p)), out);
      } else if (except) {
        for (Value p = args; is_pair(p); p = cdr(p)) find(car(p));
        for (Value p = base; is_pair(p); p = cdr(p)) {
          bool dropped = false;
          for (Value q = args; is_pair(q); q = cdr(q)) dropped = dropped || car(q) == car(car(p));
          if (!dropped) out = cons(car(p), out);
        }
      } else if (prefix) {
        if (!is_pair(args) || !is_symbol(car(args)) || cdr(args) != NIL)
          throw_error_at(loc_of(form), fmt::format("import: bad prefix in {}", error_value_string(spec)));
        std::string pre(symbol_name(car(args)));
        for (Value p = base; is_pair(p); p = cdr(p))
          out = cons(cons(intern(pre + std::string(symbol_name(car(car(p))))), cdr(car(p))), out);
      } else {
        out = base;
        for (Value p = args; is_pair(p); p = cdr(p)) {
          Value r = car(p);
          if (list_length(r) != 2 || !is_symbol(car(r)) || !is_symbol(car(cdr(r))))
            throw_error_at(loc_of(form), fmt::format("import: bad rename {}", error_value_string(r)));
          Value hit = find(car(r));
          Value renamed = NIL;
          for (Value q = out; is_pair(q); q = cdr(q))
            renamed = cons(car(q) == hit ? cons(car(cdr(r)), cdr(hit)) : car(q), renamed);
          out = renamed;
        }
      }
      return out;
    }
  }
  Value entry = load_library(spec, form);
  *lib = written_name(car(entry));
  Value exports = cdr(entry), out = NIL, k, v;
  for (int64_t i = 0; i < hashtable_slot_limit(exports); i++)
    if (hashtable_slot(exports, i, &k, &v)) out = cons(cons(k, v), out);
  return out;
}

// Creates the cells of the names a library body form defines before any form
// runs, so a procedure may refer to one defined further down.
void predeclare(Value x, int depth = 0) {
  if (depth > 100 || !is_pair(x) || !is_symbol(car(x)) || !is_pair(cdr(x))) return;
  Value keyword = global_cell(car(x));  // `define` imported as `s:define` is define
  if (!(sym(keyword)->h.flags & SYM_INTERNED)) return;
  std::string_view head = symbol_name(keyword);
  Value target = car(cdr(x));
  auto declare = [](Value s) {
    if (!is_symbol(s)) return;
    s = unaliased(s);
    // In the program, an imported name keeps meaning the import until the
    // definition itself runs (R7RS makes redefining an import an error).
    Value imported;
    if (!g_env->is_library && hashtable_lookup(g_env->imports, s, &imported)) return;
    env_define_cell(s);
  };
  if (head == "begin") {
    for (Value p = cdr(x); is_pair(p); p = cdr(p)) predeclare(car(p), depth + 1);
  } else if (head == "define" || head == "define-syntax" || head == "defmacro" || head == "define-macro") {
    while (is_pair(target)) target = car(target);  // (define ((f a) b) ...) names f
    declare(target);
  } else if (head == "define-values") {
    Value p = target;
    for (; is_pair(p); p = cdr(p)) declare(car(p));
    declare(p);
  } else if (head == "define-record-type") {
    declare(target);
    Value rest = cdr(cdr(x));
    if (!is_pair(rest)) return;
    declare(is_pair(car(rest)) ? car(car(rest)) : car(rest));  // the constructor
    if (!is_pair(cdr(rest))) return;
    declare(car(cdr(rest)));  // the predicate
    for (Value f = cdr(cdr(rest)); is_pair(f); f = cdr(f))
      if (is_pair(car(f)))
        for (Value a = cdr(car(f)); is_pair(a); a = cdr(a)) declare(car(a));  // accessor, modifier
  }
}

struct LibraryParts {
  Value exports = NIL;  // reversed list of (internal . external)
  Value body = NIL;     // reversed list of forms
};

void library_declarations(Value decls, TopEnv *env, const std::string &dir, Value form, LibraryParts *parts,
                          int depth) {
  std::string who = "define-library " + written_name(env->name);
  if (depth > 100) throw_error_at(loc_of(form), who + ": declarations nested too deeply");
  for (Value p = decls; is_pair(p); p = cdr(p)) {
    Value d = car(p);
    Value at = is_pair(d) && loc_of(d).known() ? d : form;
    if (!is_pair(d) || !is_symbol(car(d)) || list_length(d) < 0)
      throw_error_at(loc_of(at), fmt::format("{}: bad declaration {}", who, error_value_string(d)));
    std::string_view head = symbol_name(car(d));
    if (head == "export") {
      for (Value q = cdr(d); is_pair(q); q = cdr(q)) {
        Value s = car(q);
        if (is_symbol(s)) {
          parts->exports = cons(cons(s, s), parts->exports);
        } else if (list_length(s) == 3 && car(s) == intern("rename") && is_symbol(car(cdr(s))) &&
                   is_symbol(car(cdr(cdr(s))))) {
          parts->exports = cons(cons(car(cdr(s)), car(cdr(cdr(s)))), parts->exports);
        } else {
          throw_error_at(loc_of(at), fmt::format("{}: bad export {}", who, error_value_string(s)));
        }
      }
    } else if (head == "import") {
      EnvGuard guard(env);
      import_sets(cdr(d), d);
    } else if (head == "begin") {
      for (Value q = cdr(d); is_pair(q); q = cdr(q)) parts->body = cons(car(q), parts->body);
    } else if (head == "include" || head == "include-ci" || head == "include-library-declarations") {
      for (Value q = cdr(d); is_pair(q); q = cdr(q)) {
        if (!is_string(car(q))) throw_error_at(loc_of(at), fmt::format("{}: {} takes file names", who, head));
        Value forms = read_included(std::string(string_view_of(car(q))), dir, head == "include-ci", at,
                                    std::string(head).c_str());
        if (head == "include-library-declarations")
          library_declarations(forms, env, dir, at, parts, depth + 1);
        else
          for (Value f = forms; is_pair(f); f = cdr(f)) parts->body = cons(car(f), parts->body);
      }
    } else if (head == "cond-expand") {
      for (Value q = cdr(d); is_pair(q); q = cdr(q)) {
        if (!is_pair(car(q)) || list_length(car(q)) < 0)
          throw_error_at(loc_of(at), fmt::format("{}: bad cond-expand clause", who));
        if (feature_requirement_holds(car(car(q)))) {
          library_declarations(cdr(car(q)), env, dir, at, parts, depth + 1);
          break;
        }
      }
    } else {
      throw_error_at(loc_of(at), fmt::format("{}: unknown declaration {}", who, error_value_string(d, 40)));
    }
  }
}

Value reversed(Value l) {
  Value r = NIL;
  for (; is_pair(l); l = cdr(l)) r = cons(car(l), r);
  return r;
}

// The directory an environment variable or option names, without a trailing '/'.
std::vector<std::string> split_path(const char *text) {
  std::vector<std::string> out;
  if (!text) return out;
  std::string_view rest(text);
  while (true) {
    size_t c = rest.find(':');
    std::string_view d = rest.substr(0, c);
    if (!d.empty()) out.emplace_back(d);
    if (c == std::string_view::npos) break;
    rest = rest.substr(c + 1);
  }
  return out;
}

}  // namespace

Value read_included_file(const std::string &path, Value form, bool fold_case, const char *who) {
  return read_included(path, dir_of_form(form), fold_case, form, who);
}

void add_load_path_dir(const std::string &dir) { g_cli_dirs.push_back(dir); }

std::vector<std::string> load_path_dirs() {
  std::vector<std::string> dirs = split_path(std::getenv("KILN_LOAD_PATH"));
  for (const std::string &d : g_cli_dirs) dirs.push_back(d);
  return dirs;
}

// Binds the names of the import sets SPECS in env. R7RS makes it an error to
// import one identifier twice with different bindings: within one import
// declaration, and across all of a library's. A program's later import forms
// (at the REPL, say) replace what earlier ones imported.
static void bind_import_sets(TopEnv *env, Value specs, Value form) {
  Value from = make_hashtable(HASH_EQ);  // name -> the library it came from, in this declaration
  for (Value p = specs; is_pair(p); p = cdr(p)) {
    std::string lib;
    Value lib_name = NOVALUE;
    for (Value b = import_set(car(p), form, &lib, 0); is_pair(b); b = cdr(b)) {
      Value name = car(car(b)), cell = cdr(car(b)), old, old_lib;
      if (lib_name == NOVALUE) lib_name = make_string(lib);
      bool seen_here = hashtable_lookup(from, name, &old_lib);
      if ((seen_here || env->is_library) && hashtable_lookup(env->imports, name, &old) && old != cell) {
        std::string first = seen_here ? std::string(string_view_of(old_lib)) : "an earlier import";
        throw_error_at(loc_of(form),
                       fmt::format("import: {} is imported twice with different bindings, from {} "
                                   "and from {}",
                                   symbol_name(name), first, lib));
      }
      hashtable_set(from, name, lib_name);
      hashtable_set(env->imports, name, cell);
    }
  }
}

void import_sets(Value specs, Value form) {
  if (!g_env) {
    if (!g_program_env) g_program_env = new_env(NIL, false);
    g_env = g_program_env;
  }
  bind_import_sets(g_env, specs, form);
}

TopEnv *make_import_environment(Value specs) {
  TopEnv *env = new_env(NIL, true);
  EnvGuard guard(env);
  bind_import_sets(env, specs, NIL);
  return env;
}

TopEnv *program_env() { return g_program_env; }

void predeclare_program_definitions(std::string_view text, uint32_t file_id) {
  if (!g_env || g_env != g_program_env) return;
  Value forms = NIL;
  try {
    SourceReader ahead(text, file_id);
    for (Value f = ahead.next(); f != NOVALUE; f = ahead.next()) forms = cons(f, forms);
  } catch (LispError &) {
    // The forms before a read error are declared; the error itself is raised
    // when the file's own reading reaches it, after the forms before it ran.
  }
  for (Value p = forms; is_pair(p); p = cdr(p)) predeclare(car(p));
}

void define_library(Value form) {
  if (!is_pair(cdr(form)) || !is_library_name(car(cdr(form))))
    throw_error_at(loc_of(form),
                   fmt::format("define-library: bad library name in {}", error_value_string(form, 57)));
  if (list_length(form) < 0) throw_error_at(loc_of(form), "define-library: improper list");
  Value name = car(cdr(form));
  TopEnv *env = new_env(name, true);
  LibraryParts parts;
  library_declarations(cdr(cdr(form)), env, dir_of_form(form), form, &parts, 0);
  Value body = reversed(parts.body);
  {
    // As for a library file (load_library): a body's continuations must not
    // outlive it, or re-entering one would run the registration again.
    BarrierScope barrier(g_site, "a library being loaded");
    EnvGuard guard(env);
    for (Value p = body; is_pair(p); p = cdr(p)) predeclare(car(p));
    for (Value p = body; is_pair(p); p = cdr(p)) eval_toplevel(car(p));
  }
  Value exports = make_hashtable(HASH_EQ);
  for (Value p = reversed(parts.exports); is_pair(p); p = cdr(p)) {
    Value internal = car(car(p)), external = cdr(car(p));
    Value cell = env_cell(env, internal);
    if (!is_bound_cell(cell))
      throw_error_at(loc_of(form), fmt::format("define-library {}: exported name {} is not defined",
                                               written_name(name), symbol_name(internal)));
    hashtable_set(exports, external, cell);
  }
  register_library(name, exports);
}

bool library_available(Value name) {
  if (!is_library_name(name)) return false;
  if (is_kiln_library(name) || find_registered(name) != NOVALUE) return true;
  std::string w = written_name(name);
  if (standard_library_exports(std::string_view(w).substr(1, w.size() - 2))) return true;
  std::string rel = relative_file(name);
  for (const std::string &d : search_dirs(".")) {
    std::error_code ec;
    if (fs::is_regular_file(join_path(d, rel), ec)) return true;
  }
  return false;
}

namespace {

// Asks the running system, so a feature is claimed only when it holds.
bool probe(const std::function<bool()> &f) {
  HandlerScope none(NIL);
  try {
    return f();
  } catch (LispError &) {
    return false;
  }
}

Value call_global(const char *name, int argc, Value *argv) {
  Value f = sym(intern(name))->global;
  if (f == NOVALUE) throw_errorf("{} is not defined", name);
  return apply_proc(f, argc, argv);
}

}  // namespace

Value feature_list() {
  std::vector<const char *> names{"r7rs"};
  bool ratios = probe([] {
    Value args[2] = {make_int(1), make_int(3)};
    Value q = call_global("/", 2, args);
    return call_global("exact?", 1, &q) == TRUE_V;
  });
  if (ratios) names.insert(names.end(), {"exact-closed", "ratios"});
  names.push_back("ieee-float");
  bool unicode = probe([] {
    Value s = make_string("\xce\xbb");  // one character, two bytes of UTF-8
    return call_global("string-length", 1, &s) == make_int(1);
  });
  if (unicode) names.push_back("full-unicode");
  names.insert(names.end(), {"posix", "unix", "linux"});
#if defined(__x86_64__)
  names.push_back("x86-64");
#elif defined(__aarch64__)
  names.push_back("aarch64");
#endif
  names.push_back("kiln");
  Value out = NIL;
  for (auto it = names.rbegin(); it != names.rend(); ++it) out = cons(intern(*it), out);
  return out;
}

bool feature_requirement_holds(Value req) {
  std::function<bool(Value, int)> holds = [&](Value r, int depth) -> bool {
    if (depth > 1000) throw_error("cond-expand: feature requirement nested too deeply");
    if (is_symbol(r)) {
      if (r == intern("else")) return true;
      for (Value f = feature_list(); is_pair(f); f = cdr(f))
        if (car(f) == r) return true;
      return false;
    }
    if (!is_pair(r) || !is_symbol(car(r)))
      throw_errorf("cond-expand: bad feature requirement {}", error_value_string(r));
    if (list_length(cdr(r)) < 0) throw_error("cond-expand: a feature requirement must be a proper list");
    std::string_view op = symbol_name(car(r));
    if (op == "and") {
      for (Value p = cdr(r); is_pair(p); p = cdr(p))
        if (!holds(car(p), depth + 1)) return false;
      return true;
    }
    if (op == "or") {
      for (Value p = cdr(r); is_pair(p); p = cdr(p))
        if (holds(car(p), depth + 1)) return true;
      return false;
    }
    if (op == "not" && list_length(r) == 2) return !holds(car(cdr(r)), depth + 1);
    if (op == "library" && list_length(r) == 2) return library_available(car(cdr(r)));
    throw_errorf("cond-expand: bad feature requirement {}", error_value_string(r));
  };
  return holds(req, 0);
}

}  // namespace kiln

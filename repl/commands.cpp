#include "repl/commands.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>
#include <vector>

#include "repl/completion.h"
#include "repl/line_editor.h"
#include "repl/session.h"
#include "repl/syntax_docs.h"
#include "runtime/eval.h"
#include "runtime/eval_internal.h"
#include "runtime/gc.h"
#include "runtime/library.h"
#include "runtime/printer.h"
#include "runtime/reader.h"
#include "runtime/srcloc.h"

namespace kiln {

const char *const kReplCommandNames[] = {"apropos", "bt",   "describe", "expand", "help",
                                         "load",    "quit", "time",     nullptr};

static const char *kHelp =
    "Commands:\n"
    "  ,help            this list\n"
    "  ,quit            leave the REPL (so does Ctrl-D)\n"
    "  ,time EXPR       evaluate EXPR; print its value, wall and CPU time and GC count\n"
    "  ,load FILE       load a file (quotes around FILE are optional)\n"
    "  ,describe NAME   what NAME is bound to: kind, arity, documentation, where defined\n"
    "  ,expand FORM     the macro expansion of FORM (its head, until no macro is left)\n"
    "  ,apropos TEXT    every bound name containing TEXT\n"
    "  ,bt              the backtrace of the last error: one line per call, with its location\n"
    "Commands may be abbreviated (,d car). Ctrl-C interrupts an evaluation,\n"
    "Tab completes names, and history is kept across sessions.\n";

static std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_repl_command(const std::string &entry) {
  std::string_view t = trim(entry);
  return t.size() >= 2 && t[0] == ',' && std::isalpha(static_cast<unsigned char>(t[1]));
}

static void out(const std::string &text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

// ---- ,time -----------------------------------------------------------------

static double seconds_of(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

static void time_command(ReplSession &s, std::string_view expr) {
  if (expr.empty()) {
    print_repl_error(s, "error: usage: ,time EXPR");
    return;
  }
  double wall0 = seconds_of(CLOCK_MONOTONIC);
  double cpu0 = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
  GC_word gc0 = GC_get_gc_no();
  eval_entry(s, std::string(expr));
  double wall = seconds_of(CLOCK_MONOTONIC) - wall0;
  double cpu = seconds_of(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  GC_word collections = GC_get_gc_no() - gc0;
  if (s.finished) return;
  out(fmt::format(";; wall {:.6f}s, cpu {:.6f}s, {} collection{}\n", wall, cpu, collections,
                  collections == 1 ? "" : "s"));
}

// ---- ,load -----------------------------------------------------------------

static void load_command(ReplSession &s, std::string_view arg) {
  if (arg.size() >= 2 && arg.front() == '"' && arg.back() == '"') arg = arg.substr(1, arg.size() - 2);
  if (arg.empty()) {
    print_repl_error(s, "error: usage: ,load FILE");
    return;
  }
  std::string path(arg);
  run_in_repl(s, [&] { load_file(path); });
}

// ---- ,expand ----------------------------------------------------------------

// Expands the head of each form until it is no macro use, as the builtin
// macroexpand does; subforms stay as written, so the output shows what this
// one macro use turns into rather than the whole program rewritten.
static void expand_command(ReplSession &s, std::string_view arg) {
  if (arg.empty()) {
    print_repl_error(s, "error: usage: ,expand FORM");
    return;
  }
  std::string text(arg);
  run_in_repl(s, [&] {
    SourceReader reader(text, register_source_file("<expand>"));
    for (;;) {
      Value form = reader.next();
      if (form == NOVALUE) break;
      out(write_string(macroexpand(form)) + "\n");
    }
  });
}

// ---- ,describe and ,apropos --------------------------------------------------

static std::string plural(int n, const char *word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

static std::string arity_text(int min, int max) {  // max < 0: any number more
  if (max < 0) return "at least " + plural(min, "argument");
  if (min == max) return plural(min, "argument");
  return fmt::format("{} to {} arguments", min, max);
}

static std::string closure_arity(Value v) {
  std::string text;
  // A case-lambda is a chain of closures, one per clause.
  for (; is_closure(v); v = as<Closure>(v)->next_case) {
    Lambda *lam = as<Closure>(v)->lam;
    if (!text.empty()) text += " or ";
    text += arity_text(lam->nreq, lam->rest ? -1 : lam->nreq);
  }
  return text;
}

// A global macro of a special form's name replaces the form where it is used
// (runtime/analyze.cpp's special_of); any other value leaves the form in place.
static bool is_special_form_here(Value name) {
  return is_special_form_name(name) && !has_type(sym(name)->global, T_MACRO);
}

static std::string kind_of(Value name) {
  if (is_special_form_here(name)) return "special form";
  Value v = sym(name)->global;
  if (is_builtin(v)) return "builtin procedure";
  if (is_closure(v)) return "procedure";
  if (has_type(v, T_MACRO)) return "macro";
  if (is_procedure(v)) return std::string(type_name(v));
  return "variable";
}

static std::string doc_text(Value doc) { return is_string(doc) ? std::string(string_view_of(doc)) : ""; }

static std::string abbreviated_write(Value v) {
  std::string text = write_string(v);
  constexpr size_t kMax = 70;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

// The uses a syntax-rules macro accepts, one pattern a line with the macro's
// name in place of the pattern's head (often `_`).
static std::string rule_shapes(Value name, Value patterns) {
  std::string text;
  for (Value p = patterns; is_pair(p); p = cdr(p)) {
    Value pattern = car(p);
    Value shape = is_pair(pattern) ? cons(name, cdr(pattern)) : pattern;
    text += (text.empty() ? "  syntax: " : "          ") + write_string(shape) + "\n";
  }
  return text;
}

bool describe_name(std::string_view arg, std::string *text_out) {
  // The variable the name means in the program, imports included
  // (runtime/library.h): `s:car` after (import (prefix (scheme base) s:)) is car.
  Value name = env_cell(program_env(), intern(arg));
  Value v = sym(name)->global;
  if (!is_special_form_name(name) && v == NOVALUE) return false;
  std::string text = fmt::format("{}: {}\n", arg, kind_of(name));
  std::string doc = doc_text(sym(name)->doc);
  SrcLoc defined_at;
  Value patterns = NOVALUE;  // of a syntax-rules macro
  // Syntax has no procedure to carry a doc: the table supplies it, for a
  // macro only while it is still the prelude's.
  const SyntaxDoc *syntax = find_syntax_doc(symbol_name(name));
  if (is_special_form_here(name)) {
  } else if (is_builtin(v)) {
    Builtin *b = as<Builtin>(v);
    text += "  arity: " + arity_text(b->min_args, b->max_args) + "\n";
    if (doc.empty() && b->doc) doc = b->doc;
  } else if (is_closure(v)) {
    Lambda *lam = as<Closure>(v)->lam;
    if (is_symbol(lam->name) && lam->name != name)
      text += fmt::format("  name: {}\n", symbol_name(lam->name));
    text += "  arity: " + closure_arity(v) + "\n";
    if (doc.empty()) doc = doc_text(lam->doc);
    defined_at = lam->loc;
  } else if (has_type(v, T_MACRO)) {
    Value transformer = as<Macro>(v)->transformer;
    if (is_closure(transformer)) {
      Lambda *lam = as<Closure>(transformer)->lam;
      if (doc.empty()) doc = doc_text(lam->doc);
      defined_at = lam->loc;
    } else if (is_syntax_rules(transformer)) {
      SyntaxRulesInfo info = describe_syntax_rules(transformer);
      if (doc.empty()) doc = doc_text(info.doc);
      defined_at = info.loc;
      patterns = info.patterns;
    }
  } else {
    text += fmt::format("  value: {} {}\n", type_name(v), abbreviated_write(v));
  }
  bool builtin_syntax =
      is_special_form_here(name) ||
      (has_type(v, T_MACRO) && (!defined_at.known() || source_file_name(defined_at.file) == "<prelude>"));
  if (syntax && builtin_syntax) {
    text += fmt::format("  syntax: {}\n", syntax->usage);
    if (doc.empty()) doc = syntax->doc;
  } else if (patterns != NOVALUE) {
    text += rule_shapes(intern(arg), patterns);
  }
  if (!doc.empty()) text += "  doc: " + doc + "\n";
  if (defined_at.known()) text += "  defined at " + format_loc(defined_at) + "\n";
  *text_out = std::move(text);
  return true;
}

static void describe_command(ReplSession &s, std::string_view arg) {
  if (arg.empty() || arg.find_first_of(" \t\n()[]\"'") != std::string_view::npos) {
    print_repl_error(s, "error: usage: ,describe NAME");
    return;
  }
  std::string text;
  if (!describe_name(arg, &text)) {
    print_repl_error(s, fmt::format("error: ,describe: {} is not bound", arg));
    return;
  }
  out(text);
}

// Columns a name takes on a terminal, taking each UTF-8 character as one.
static size_t code_points(const std::string &s) {
  return size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

static void apropos_command(ReplSession &s, std::string_view arg) {
  if (arg.empty()) {
    print_repl_error(s, "error: usage: ,apropos TEXT");
    return;
  }
  std::vector<std::string> found;
  size_t width = 0;
  for (const std::string &n : bound_names()) {
    if (n.find(arg) == std::string::npos) continue;
    found.push_back(n);
    width = std::max(width, code_points(n));
  }
  // The kinds line up two columns past the longest name found.
  std::string text;
  for (const std::string &n : found)
    text += n + std::string(width - code_points(n) + 2, ' ') + kind_of(intern(n)) + "\n";
  if (text.empty()) text = fmt::format("no bound name contains {}\n", arg);
  out(text);
}

// ---- ,bt ------------------------------------------------------------------

static void bt_command(ReplSession &s) {
  if (!s.had_error) {
    out("no error yet in this session\n");
    return;
  }
  out(s.last_error.headline + "\n" + backtrace_lines(s.last_error));
}

// ---- dispatch ----------------------------------------------------------------

void run_repl_command(ReplSession &s, const std::string &entry) {
  std::string_view t = trim(entry).substr(1);
  size_t end = 0;
  while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end]))) end++;
  std::string_view word = t.substr(0, end);
  std::string_view arg = trim(t.substr(end));
  std::vector<std::string_view> matches;
  for (const char *const *c = kReplCommandNames; *c; c++) {
    std::string_view name = *c;
    if (name == word) {
      matches = {name};
      break;
    }
    if (name.substr(0, word.size()) == word) matches.push_back(name);
  }
  if (matches.size() != 1) {
    print_repl_error(s, fmt::format("error: {} command ,{} (,help lists the commands)",
                                    matches.empty() ? "unknown" : "ambiguous", word));
    return;
  }
  std::string_view command = matches[0];
  if (command == "help") out(kHelp);
  else if (command == "quit") s.finished = true;
  else if (command == "time") time_command(s, arg);
  else if (command == "load") load_command(s, arg);
  else if (command == "describe") describe_command(s, arg);
  else if (command == "apropos") apropos_command(s, arg);
  else if (command == "bt") bt_command(s);
  else if (command == "expand") expand_command(s, arg);
}

}  // namespace kiln

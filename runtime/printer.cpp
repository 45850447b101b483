#include "printer.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <string>

#include "eval_internal.h"
#include "hashtable.h"
#include "object.h"
#include "port.h"

namespace kiln {

void format_double(std::string &out, double d) {
  if (d != d) {
    out += "+nan.0";
    return;
  }
  if (d == __builtin_inf()) {
    out += "+inf.0";
    return;
  }
  if (d == -__builtin_inf()) {
    out += "-inf.0";
    return;
  }
  size_t start = out.size();
  fmt::format_to(std::back_inserter(out), "{}", d);
  if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

std::string format_double(double d) {
  std::string s;
  format_double(s, d);
  return s;
}

static const char *char_name(uint32_t c) {
  switch (c) {
  case ' ': return "space";
  case '\n': return "newline";
  case '\t': return "tab";
  case '\r': return "return";
  case 0: return "nul";
  case 7: return "alarm";
  case 8: return "backspace";
  case 27: return "escape";
  case 127: return "delete";
  default: return nullptr;
  }
}

static void write_string_literal(std::string &out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (c < 0x20 || c == 0x7f) fmt::format_to(std::back_inserter(out), "\\x{:x};", c);
      else out += char(c);
    }
  }
  out += '"';
}

// Mirrors the reader's decimal number syntax (reader.cpp parse_number), so a
// symbol is barred exactly when its bare name would read back as a number: `inf`
// and `nan` stay bare, `+inf.0` and `1e3` get bars.
static bool reads_as_number(std::string_view s) {
  if (s == "+inf.0" || s == "-inf.0" || s == "+nan.0" || s == "-nan.0") return true;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i == s.size()) return false;
  bool all_digits = true, digit = false;
  for (size_t j = i; j < s.size(); j++) {
    char c = s[j];
    if (std::isdigit((unsigned char)c)) {
      digit = true;
      continue;
    }
    all_digits = false;
    if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') return false;
  }
  if (all_digits) return true;  // an integer (or an out-of-range one: a read error)
  if (!digit) return false;
  std::string tmp(s);
  char *end = nullptr;
  std::strtod(tmp.c_str(), &end);
  return end && *end == 0;
}

static bool symbol_needs_bars(std::string_view s) {
  if (s.empty()) return true;
  for (unsigned char c : s)
    if (c <= ' ' || c == '(' || c == ')' || c == '[' || c == ']' || c == '"' || c == ';' || c == '\'' ||
        c == '`' || c == ',' || c == '|' || c == 0x7f)
      return true;
  if (s == "." || s[0] == '#') return true;  // '#' starts other syntax in the reader
  return reads_as_number(s);
}

static void print_procedure_name(std::string &out, const char *kind, Value name) {
  out += "#<";
  out += kind;
  if (is_symbol(name)) {
    out += ' ';
    out += symbol_name(name);
  }
  out += '>';
}

void print_value(std::string &out, Value v, bool write) {
  if (is_fixnum(v)) {
    fmt::format_to(std::back_inserter(out), "{}", fixnum_of(v));
    return;
  }
  if (is_double(v)) {
    format_double(out, double_of(v));
    return;
  }
  if (is_char(v)) {
    uint32_t c = char_of(v);
    if (!write) {
      out += char(c);
      return;
    }
    out += "#\\";
    if (const char *n = char_name(c)) out += n;
    else if (c < 0x20) fmt::format_to(std::back_inserter(out), "x{:x}", c);
    else out += char(c);
    return;
  }
  if (!is_ptr(v)) {
    if (v == TRUE_V) out += "#t";
    else if (v == FALSE_V) out += "#f";
    else if (v == NIL) out += "()";
    else if (v == EOF_V) out += "#<eof>";
    else if (v == UNSPEC) out += "#<unspecified>";
    else if (v == DEFAULT_V) out += "#<default>";
    else out += "#<undefined>";
    return;
  }
  switch (hdr(v)->type) {
  case T_INT64: fmt::format_to(std::back_inserter(out), "{}", as<Int64Box>(v)->n); return;
  case T_STRING:
    if (write) write_string_literal(out, string_view_of(v));
    else out += string_view_of(v);
    return;
  case T_SYMBOL: {
    std::string_view n = symbol_name(v);
    if (write && symbol_needs_bars(n)) {
      out += '|';
      out += n;
      out += '|';
    } else {
      out += n;
    }
    return;
  }
  case T_PAIR: {
    out += '(';
    print_value(out, car(v), write);
    Value p = cdr(v);
    while (is_pair(p)) {
      out += ' ';
      print_value(out, car(p), write);
      p = cdr(p);
    }
    if (p != NIL) {
      out += " . ";
      print_value(out, p, write);
    }
    out += ')';
    return;
  }
  case T_VECTOR: {
    Vector *vec = as<Vector>(v);
    out += "#(";
    for (int64_t i = 0; i < vec->len; i++) {
      if (i) out += ' ';
      print_value(out, vec->items[i], write);
    }
    out += ')';
    return;
  }
  case T_CLOSURE: print_procedure_name(out, "procedure", closure_name(v)); return;
  case T_BUILTIN:
    out += "#<builtin ";
    out += as<Builtin>(v)->name;
    out += '>';
    return;
  case T_MACRO: print_procedure_name(out, "macro", as<Macro>(v)->name); return;
  case T_HASHTABLE: fmt::format_to(std::back_inserter(out), "#<hash-table {}>", hashtable_count(v)); return;
  case T_ERROR: {
    ErrorObj *e = as<ErrorObj>(v);
    out += "#<error ";
    print_value(out, e->message, true);
    for (Value p = e->irritants; is_pair(p); p = cdr(p)) {
      out += ' ';
      print_value(out, car(p), true);
    }
    out += '>';
    return;
  }
  case T_RECORD: {
    Record *r = as<Record>(v);
    out += "#<";
    out += symbol_name(as<RecordType>(r->rtype)->name);
    for (int64_t i = 0; i < r->n; i++) {
      out += ' ';
      print_value(out, r->fields[i], write);
    }
    out += '>';
    return;
  }
  case T_RECORD_TYPE:
    out += "#<record-type ";
    out += symbol_name(as<RecordType>(v)->name);
    out += '>';
    return;
  case T_PROMISE: out += "#<promise>"; return;
  case T_PARAMETER: out += "#<parameter>"; return;
  case T_CONTINUATION: out += "#<continuation>"; return;
  case T_ENVIRONMENT: out += "#<environment>"; return;
  case T_PORT:
    out += "#<port";
    if (is_string(as<Port>(v)->name)) {
      out += ' ';
      out += string_view_of(as<Port>(v)->name);
    }
    out += '>';
    return;
  case T_VALUES: {
    MultipleValues *mv = as<MultipleValues>(v);
    for (int64_t i = 0; i < mv->n; i++) {
      if (i) out += ' ';
      print_value(out, mv->items[i], write);
    }
    return;
  }
  default: {
    const TypeHooks &h = g_type_hooks[hdr(v)->type];
    if (h.print) {
      h.print(out, v, write);
      return;
    }
    out += "#<";
    out += h.name ? h.name : "object";
    out += '>';
  }
  }
}

std::string write_string(Value v) {
  std::string s;
  print_value(s, v, true);
  return s;
}

std::string display_string(Value v) {
  std::string s;
  print_value(s, v, false);
  return s;
}

}  // namespace kiln

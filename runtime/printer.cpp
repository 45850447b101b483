#include "printer.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

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

// ---- cycles ------------------------------------------------------------------
//
// write and display label cycles only, as R7RS write does: an object gets a
// datum label when printing it would reach it again from inside itself, so
// `#0=(1 2 . #0#)` and `#0=#(#0# 2)`; labels count from 0 in the order they are
// first printed, and shared but acyclic structure prints in full, unlabelled.
// The containers are pairs, vectors, records, error objects (message and
// irritants) and multiple values; every other object prints without printing
// Lisp values inside it.
//
// Ordinary data pays almost nothing for this: the first attempt prints with
// no labels, checking each cdr chain for a loop (Brent's algorithm: one
// compare and one count per pair) and counting nesting depth. A cycle makes
// that print endless, either along a cdr chain, which the check catches, or
// through ever deeper cars and elements, which the depth cap catches; so an
// attempt that ends had no cycle. One that hits either limit is abandoned (its
// output is cut off again) and find_cycles, an exact, iterative depth-first
// search, picks the objects to label for the second attempt.

static bool is_container(Value v) {
  if (!is_ptr(v)) return false;
  switch (type_of_ptr(v)) {
  case T_PAIR:
  case T_VECTOR:
  case T_RECORD:
  case T_ERROR:
  case T_VALUES: return true;
  default: return false;
  }
}

// The number of distinct pairs along the cdr chain from p; `circular` says
// whether the chain comes back to one of them (Floyd, then the loop's start
// and length). Error objects' irritant lists are walked this way: the list is
// reachable from Lisp (error-object-irritants), so set-cdr! can make it loop.
static int64_t chain_length(Value p, bool &circular) {
  circular = false;
  Value slow = p, fast = p;
  while (is_pair(fast) && is_pair(cdr(fast))) {
    slow = cdr(slow);
    fast = cdr(cdr(fast));
    if (slow == fast) {
      circular = true;
      break;
    }
  }
  if (!circular) {
    int64_t n = 0;
    for (; is_pair(p); p = cdr(p)) n++;
    return n;
  }
  int64_t mu = 0;  // pairs before the loop
  for (slow = p; slow != fast; slow = cdr(slow), fast = cdr(fast)) mu++;
  int64_t lambda = 1;  // pairs in the loop
  for (fast = cdr(slow); fast != slow; fast = cdr(fast)) lambda++;
  return mu + lambda;
}

// Nesting (through cars, elements and fields) beyond which the first attempt
// stops and lets find_cycles decide. The printer recurses on nesting, as it
// always has; this bounds how deep a cycle through cars takes it.
constexpr int kMaxCheckedDepth = 1000;

// Thrown inside print_value only, when the first attempt may have met a cycle.
struct MaybeCyclic {};

// Object address -> depth-first search state, open addressing with linear
// probing, the state in the address's 3 always-zero low bits.
//
// This table and find_cycles' stack hold Values in malloc memory, which the
// collector does not scan. That is safe only because the value being printed
// keeps every object in them reachable for the whole call, and printing never
// allocates GC memory, so no collection even runs meanwhile.
class SearchStates {
 public:
  static constexpr uint64_t kOnStack = 1, kDone = 2, kCyclic = 4;

  uint64_t get(Value v) const {
    for (size_t i = slot_of(v);; i = (i + 1) & mask_) {
      uint64_t s = slots_[i];
      if (s == 0) return 0;
      if ((s & ~7ull) == v.bits) return s & 7;
    }
  }
  void set(Value v, uint64_t state) {
    for (size_t i = slot_of(v);; i = (i + 1) & mask_) {
      uint64_t s = slots_[i];
      if (s == 0) {
        slots_[i] = v.bits | state;
        if (++count_ * 4 > slots_.size() * 3) grow();
        return;
      }
      if ((s & ~7ull) == v.bits) {
        slots_[i] = v.bits | state;
        return;
      }
    }
  }

 private:
  size_t slot_of(Value v) const { return size_t((v.bits * 0x9E3779B97F4A7C15ull) >> shift_); }
  void grow() {
    std::vector<uint64_t> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, 0);
    mask_ = slots_.size() - 1;
    shift_--;
    for (uint64_t s : old) {
      if (s == 0) continue;
      size_t i = slot_of(Value{s & ~7ull});
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<uint64_t> slots_ = std::vector<uint64_t>(256, 0);
  size_t mask_ = 255;
  int shift_ = 64 - 8;
  size_t count_ = 0;
};

// The objects that need labels: those the search meets again while they are
// still on its stack. The stack holds one frame per container being searched;
// a pair's frame walks its whole cdr chain (keeping every pair of the chain on
// the stack until the chain ends), so a long list costs one frame, not one per
// pair, and nothing here recurses in C++.
static std::vector<Value> find_cycles(Value root) {
  using S = SearchStates;
  S states;
  std::vector<Value> targets;
  struct Frame {
    Value obj;  // the container; for a pair, the first pair of the chain
    Value cur;  // pair: the chain's current pair; error: the next irritant pair
    int64_t i;  // the next child (pair: 0 car, 1 cdr, 2 finished)
    int64_t n;  // error: the number of irritants
  };
  std::vector<Frame> stack;
  auto visit = [&](Value x) {
    if (!is_container(x)) return;
    uint64_t s = states.get(x);
    if (s & S::kOnStack) {
      if (!(s & S::kCyclic)) {
        states.set(x, s | S::kCyclic);
        targets.push_back(x);
      }
      return;
    }
    if (s & S::kDone) return;
    states.set(x, S::kOnStack);
    Frame f{x, x, 0, 0};
    if (type_of_ptr(x) == T_ERROR) {
      bool circular;
      f.cur = as<ErrorObj>(x)->irritants;
      f.n = chain_length(f.cur, circular);
    }
    stack.push_back(f);
  };
  auto finish = [&](Value x) { states.set(x, (states.get(x) & S::kCyclic) | S::kDone); };
  visit(root);
  while (!stack.empty()) {
    // `f` dangles once visit pushes a frame, so each branch visits last.
    Frame &f = stack.back();
    Value o = f.obj;
    const Value *items = nullptr;
    int64_t len = 0;
    switch (type_of_ptr(o)) {
    case T_PAIR:
      if (f.i == 0) {
        f.i = 1;
        visit(car(f.cur));
      } else if (f.i == 1) {
        Value d = cdr(f.cur);
        if (is_pair(d) && states.get(d) == 0) {
          states.set(d, S::kOnStack);  // the chain goes on in this frame
          f.cur = d;
          f.i = 0;
        } else {
          f.i = 2;
          visit(d);
        }
      } else {
        for (Value p = o;; p = cdr(p)) {
          finish(p);
          if (p == f.cur) break;
        }
        stack.pop_back();
      }
      continue;
    case T_ERROR:
      if (f.i == 0) {
        f.i = 1;
        visit(as<ErrorObj>(o)->message);
      } else if (f.i - 1 < f.n) {
        Value x = car(f.cur);
        f.cur = cdr(f.cur);
        f.i++;
        visit(x);
      } else {
        finish(o);
        stack.pop_back();
      }
      continue;
    case T_VECTOR:
      items = as<Vector>(o)->items;
      len = as<Vector>(o)->len;
      break;
    case T_RECORD:
      items = as<Record>(o)->fields;
      len = as<Record>(o)->n;
      break;
    case T_VALUES:
      items = as<MultipleValues>(o)->items;
      len = as<MultipleValues>(o)->n;
      break;
    }
    if (f.i < len) {
      visit(items[f.i++]);
    } else {
      finish(o);
      stack.pop_back();
    }
  }
  return targets;
}

// The labels of one print_value call: cycle targets -> label, -1 until printed.
struct Labels {
  std::unordered_map<uint64_t, int64_t> ids;
  int64_t next = 0;
};

// For a cycle target: prints `#N#` and returns true when it was printed
// already, else gives it the next label and prints `#N=` before its contents.
static bool print_label(std::string &out, Labels *labels, Value v) {
  auto it = labels->ids.find(v.bits);
  if (it == labels->ids.end()) return false;
  if (it->second >= 0) {
    fmt::format_to(std::back_inserter(out), "#{}#", it->second);
    return true;
  }
  it->second = labels->next++;
  fmt::format_to(std::back_inserter(out), "#{}=", it->second);
  return false;
}

// At each container: in the first attempt, counts its depth; in the second,
// prints its label. True when it is a label reference, nothing more to print.
static bool enter_container(std::string &out, Labels *labels, Value v, int &depth) {
  if (labels) return print_label(out, labels, v);
  if (++depth > kMaxCheckedDepth) throw MaybeCyclic{};
  return false;
}

// `labels` is null in the first attempt, which throws MaybeCyclic at a loop
// along a cdr chain or past kMaxCheckedDepth (`depth` counts the nesting);
// the second attempt has labels (none when the value only nests deeply) and
// checks nothing.
static void print_rec(std::string &out, Value v, bool write, Labels *labels, int depth) {
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
    if (enter_container(out, labels, v, depth)) return;
    out += '(';
    size_t closes = 1;
    print_rec(out, car(v), write, labels, depth);
    Value p = cdr(v);
    Value mark = v;  // Brent: a loop brings p back to the last mark
    int64_t steps = 0, power = 1;
    for (; is_pair(p); p = cdr(p)) {
      if (!labels) {
        if (p == mark) throw MaybeCyclic{};
        if (++steps == power) {
          mark = p;
          steps = 0;
          power *= 2;
        }
        out += ' ';
      } else if (labels->ids.count(p.bits)) {
        // A cycle target inside the chain, `(1 . #0=(2 3 . #0#))`: opened
        // here, closed at the end, so a long chain does not recurse.
        out += " . ";
        if (print_label(out, labels, p)) {
          p = NIL;
          break;
        }
        out += '(';
        closes++;
      } else {
        out += ' ';
      }
      print_rec(out, car(p), write, labels, depth);
    }
    if (p != NIL) {
      out += " . ";
      print_rec(out, p, write, labels, depth);
    }
    out.append(closes, ')');
    return;
  }
  case T_VECTOR: {
    if (enter_container(out, labels, v, depth)) return;
    Vector *vec = as<Vector>(v);
    out += "#(";
    for (int64_t i = 0; i < vec->len; i++) {
      if (i) out += ' ';
      print_rec(out, vec->items[i], write, labels, depth);
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
    if (enter_container(out, labels, v, depth)) return;
    ErrorObj *e = as<ErrorObj>(v);
    out += "#<error ";
    print_rec(out, e->message, true, labels, depth);
    bool circular;
    int64_t n = chain_length(e->irritants, circular);
    Value p = e->irritants;
    for (int64_t i = 0; i < n; i++, p = cdr(p)) {
      out += ' ';
      print_rec(out, car(p), true, labels, depth);
    }
    if (circular) out += " ...";
    out += '>';
    return;
  }
  case T_RECORD: {
    if (enter_container(out, labels, v, depth)) return;
    Record *r = as<Record>(v);
    out += "#<";
    out += symbol_name(as<RecordType>(r->rtype)->name);
    for (int64_t i = 0; i < r->n; i++) {
      out += ' ';
      print_rec(out, r->fields[i], write, labels, depth);
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
    if (enter_container(out, labels, v, depth)) return;
    MultipleValues *mv = as<MultipleValues>(v);
    for (int64_t i = 0; i < mv->n; i++) {
      if (i) out += ' ';
      print_rec(out, mv->items[i], write, labels, depth);
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

void print_value(std::string &out, Value v, bool write) {
  size_t start = out.size();
  try {
    print_rec(out, v, write, nullptr, 0);
    return;
  } catch (MaybeCyclic &) {
    out.resize(start);
  }
  Labels labels;
  for (Value t : find_cycles(v)) labels.ids.emplace(t.bits, -1);
  print_rec(out, v, write, &labels, 0);
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

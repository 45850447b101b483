#include "runtime/printer.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/complex.h"
#include "runtime/eval_internal.h"
#include "runtime/exact.h"
#include "runtime/hashtable.h"
#include "runtime/number.h"
#include "runtime/object.h"
#include "runtime/port.h"
#include "runtime/utf8.h"

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

// Control characters (C0, DEL and C1) print as \xHH; escapes; every other
// character as its UTF-8 bytes.
static bool is_control_char(uint32_t c) { return c < 0x20 || (c >= 0x7f && c <= 0x9f); }

static void write_string_literal(std::string &out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char b = (unsigned char)s[i];
    if (b == 0xC2 && i + 1 < s.size() && (unsigned char)s[i + 1] <= 0x9F) {
      fmt::format_to(std::back_inserter(out), "\\x{:x};", (unsigned char)s[i + 1]);  // a C1 control
      i += 2;
      continue;
    }
    i++;
    switch (b) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (b < 0x20 || b == 0x7f) fmt::format_to(std::back_inserter(out), "\\x{:x};", b);
      else out += char(b);
    }
  }
  out += '"';
}

// Whether the bare name would read back as a number (or as the reader's
// "out of range" integer, which Kiln does not read as a symbol either), so `inf` and `nan` stay bare while
// `+inf.0`, `1e3`, `+i` and
// `+nan.0abc` (too close to a number for other Schemes' readers) get bars.
static bool reads_as_number(std::string_view s) {
  std::string refused;
  if (parse_number(s, 10, &refused) != NOVALUE || !refused.empty()) return true;
  char last = char(std::tolower((unsigned char)s.back()));
  bool starts_numeric =
      std::isdigit((unsigned char)s[0]) || ((s[0] == '+' || s[0] == '-' || s[0] == '.') && s.size() > 1 &&
                                            (std::isdigit((unsigned char)s[1]) || s[1] == '.'));
  if (last == 'i' && (starts_numeric || s == "+i" || s == "-i")) return true;
  if (s.size() > 5 && (s[0] == '+' || s[0] == '-')) {
    std::string head(s.substr(1, 4));
    for (char &c : head) c = char(std::tolower((unsigned char)c));
    if (head == "inf." || head == "nan.") return true;
  }
  return false;
}

static bool symbol_needs_bars(std::string_view s) {
  if (s.empty()) return true;
  if (s.find("\xC2") != std::string_view::npos)  // a C1 control (U+0080..U+009F) or a Latin-1 sign
    for (size_t i = 0; i + 1 < s.size(); i++)
      if ((unsigned char)s[i] == 0xC2 && (unsigned char)s[i + 1] <= 0x9F) return true;
  for (unsigned char c : s)
    if (c <= ' ' || c == '(' || c == ')' || c == '[' || c == ']' || c == '"' || c == ';' || c == '\'' ||
        c == '`' || c == ',' || c == '|' || c == '\\' || c == 0x7f)
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
// output is cut off again) and find_labelled, an exact, iterative depth-first
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
// whether the chain comes back to one of them. Error objects' irritant lists
// are walked this way: the list is reachable from Lisp
// (error-object-irritants), so set-cdr! can make it loop.
static int64_t chain_length(Value p, bool &circular) {
  circular = is_circular(p);
  if (circular) {
    int64_t mu, lambda;
    loop_shape(p, &mu, &lambda);
    return mu + lambda;
  }
  int64_t n = 0;
  for (; is_pair(p); p = cdr(p)) n++;
  return n;
}

// Nesting (through cars, elements and fields) beyond which the first attempt
// stops and lets find_labelled decide; this bounds how deep a cycle through
// cars takes it before the printer looks for labels.
constexpr int kMaxCheckedDepth = 1000;

// Thrown inside print_value only, when the first attempt may have met a cycle.
struct MaybeCyclic {};

// Object address -> depth-first search state, open addressing with linear
// probing, the state in the address's 3 always-zero low bits.
//
// This table and find_labelled' stack hold Values in malloc memory, which the
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
// still on its stack (a cycle), or with `shared`, met again at all. The stack holds one frame per container
// being searched; a pair's frame walks its whole cdr chain (keeping every pair of the chain on the stack
// until the chain ends), so a long list costs one frame, not one per pair, and nothing here recurses in C++.
static std::vector<Value> find_labelled(Value root, bool shared) {
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
    if (s & S::kDone) {
      if (shared && !(s & S::kCyclic)) {
        states.set(x, s | S::kCyclic);
        targets.push_back(x);
      }
      return;
    }
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

// A container whose elements are being printed. `write` is how they print
// (an error's message and irritants are always written).
struct OpenContainer {
  enum Kind : uint8_t { kList, kItems, kIrritants } kind;
  bool write;
  bool space_first = false;      // kItems: a space before the first item too
  const char *close = ")";       // kItems, kIrritants: printed after the last
  Value rest = NIL;              // kList, kIrritants: the chain still to print
  Value mark = NIL;              // kList: Brent's mark along the chain
  int64_t steps = 0, power = 1;  // kList
  size_t closes = 1;             // kList: parens opened along the chain
  const Value *items = nullptr;  // kItems
  Value names = NIL;             // kItems of a record: its field names, printed "x: " before each item
  int64_t next = 0, n = 0;       // kItems: next index, count; kIrritants: count left
};

// Prints the separator before an open container's next element and returns
// true with the element in *v, or prints its end and returns false.
// `labels` is null in the first attempt, which throws MaybeCyclic at a loop
// along a cdr chain.
static bool next_element(std::string &out, OpenContainer &c, Labels *labels, Value *v) {
  switch (c.kind) {
  case OpenContainer::kList: {
    Value p = c.rest;
    if (is_pair(p)) {
      if (!labels) {
        if (p == c.mark) throw MaybeCyclic{};
        if (++c.steps == c.power) {
          c.mark = p;
          c.steps = 0;
          c.power *= 2;
        }
        out += ' ';
      } else if (labels->ids.count(p.bits)) {
        // A cycle target inside the chain, `(1 . #0=(2 3 . #0#))`: opened
        // here, closed at the end, so the chain stays one container.
        out += " . ";
        if (print_label(out, labels, p)) {
          out.append(c.closes, ')');
          return false;
        }
        out += '(';
        c.closes++;
      } else {
        out += ' ';
      }
      *v = car(p);
      c.rest = cdr(p);
      return true;
    }
    if (p != NIL) {
      out += " . ";
      *v = p;
      c.rest = NIL;
      return true;
    }
    out.append(c.closes, ')');
    return false;
  }
  case OpenContainer::kItems:
    if (c.next < c.n) {
      if (c.next > 0 || c.space_first) out += ' ';
      if (is_pair(c.names)) {
        out += symbol_name(car(c.names));
        out += ": ";
        c.names = cdr(c.names);
      }
      *v = c.items[c.next++];
      return true;
    }
    out += c.close;
    return false;
  case OpenContainer::kIrritants:
    if (c.n > 0) {
      out += ' ';
      *v = car(c.rest);
      c.rest = cdr(c.rest);
      c.n--;
      return true;
    }
    out += c.close;
    return false;
  }
  return false;
}

struct LimitReached {};

// How far one print_value call may go: `end` is the output size past which it
// stops (a value's printed form can be astronomically long: 60 levels of
// (list x x) print 2^60 leaves); `poll` lets Ctrl-C stop it.
struct PrintLimit {
  size_t end = SIZE_MAX;
  bool poll = false;
};

// Prints an atom, or opens a container and returns it, with its first
// element in *first unless next_element gives that (*has_first false). At a container: in the first attempt
// (no labels), counts its nesting, in the second, prints its label; a label reference prints whole.
static std::optional<OpenContainer> print_start(std::string &out, Value v, bool write, Labels *labels,
                                                size_t depth, Value *first, bool *has_first,
                                                const PrintLimit &limit) {
  bool poll = limit.poll;
  if (is_container(v)) {
    if (labels) {
      if (print_label(out, labels, v)) return std::nullopt;
    } else if (depth >= kMaxCheckedDepth) {
      throw MaybeCyclic{};
    }
  }
  if (is_fixnum(v)) {
    fmt::format_to(std::back_inserter(out), "{}", fixnum_of(v));
    return std::nullopt;
  }
  if (is_double(v)) {
    format_double(out, double_of(v));
    return std::nullopt;
  }
  if (is_char(v)) {
    uint32_t c = char_of(v);
    if (!write) {
      utf8_append(out, c);
      return std::nullopt;
    }
    out += "#\\";
    if (const char *n = char_name(c)) out += n;
    else if (is_control_char(c)) fmt::format_to(std::back_inserter(out), "x{:x}", c);
    else utf8_append(out, c);
    return std::nullopt;
  }
  if (!is_ptr(v)) {
    if (v == TRUE_V) out += "#t";
    else if (v == FALSE_V) out += "#f";
    else if (v == NIL) out += "()";
    else if (v == EOF_V) out += "#<eof>";
    else if (v == UNSPEC) out += "#<unspecified>";
    else if (v == DEFAULT_V) out += "#<default>";
    else out += "#<undefined>";
    return std::nullopt;
  }
  OpenContainer c{};
  c.write = write;
  *has_first = true;
  switch (hdr(v)->type) {
  case T_BIGNUM:
  case T_RATNUM:
    // A capped print (an error message) that could show only the first digits
    // shows the size instead: making all the digits of a huge integer would
    // take seconds to minutes, and an error report cannot be interrupted.
    if (limit.end != SIZE_MAX && !poll &&
        exact_digits_exceed(v, limit.end - std::min(limit.end, out.size()))) {
      out += exact_size_text(v);
      return std::nullopt;
    }
    out += exact_to_string(v, 10, poll);
    return std::nullopt;
  case T_COMPNUM: out += complex_to_string(v, 10, poll); return std::nullopt;
  case T_STRING:
    if (write) write_string_literal(out, string_view_of(v));
    else out += string_view_of(v);
    return std::nullopt;
  case T_SYMBOL: {
    std::string_view n = symbol_name(v);
    if (write && symbol_needs_bars(n)) {
      out += '|';
      for (size_t i = 0; i < n.size(); i++) {
        unsigned char ch = (unsigned char)n[i];
        if (ch == 0xC2 && i + 1 < n.size() && (unsigned char)n[i + 1] <= 0x9F) {
          fmt::format_to(std::back_inserter(out), "\\x{:x};", (unsigned char)n[++i]);  // a C1 control
        } else if (ch == '|' || ch == '\\') {
          out += '\\';
          out += char(ch);
        } else if (ch < 0x20 || ch == 0x7f) {
          fmt::format_to(std::back_inserter(out), "\\x{:x};", ch);
        } else {
          out += char(ch);
        }
      }
      out += '|';
    } else {
      out += n;
    }
    return std::nullopt;
  }
  case T_PAIR:
    out += '(';
    c.kind = OpenContainer::kList;
    c.rest = cdr(v);
    c.mark = v;  // Brent: a loop brings the chain back to the last mark
    *first = car(v);
    return c;
  case T_BYTEVECTOR: {
    Bytevector *b = as<Bytevector>(v);
    out += "#u8(";
    for (int64_t i = 0; i < b->len; i++)
      fmt::format_to(std::back_inserter(out), "{}{}", i ? " " : "", b->bytes[i]);
    out += ')';
    return std::nullopt;
  }
  case T_VECTOR: {
    Vector *vec = as<Vector>(v);
    out += "#(";
    c.kind = OpenContainer::kItems;
    c.items = vec->items;
    c.n = vec->len;
    break;
  }
  case T_CLOSURE: print_procedure_name(out, "procedure", closure_name(v)); return std::nullopt;
  case T_BUILTIN:
    out += "#<builtin ";
    out += as<Builtin>(v)->name;
    out += '>';
    return std::nullopt;
  case T_MACRO: print_procedure_name(out, "macro", as<Macro>(v)->name); return std::nullopt;
  case T_HASHTABLE:
    fmt::format_to(std::back_inserter(out), "#<hash-table {}>", hashtable_count(v));
    return std::nullopt;
  case T_ERROR: {
    ErrorObj *e = as<ErrorObj>(v);
    out += "#<error ";
    bool circular;
    c.kind = OpenContainer::kIrritants;
    c.write = true;
    c.n = chain_length(e->irritants, circular);
    c.rest = e->irritants;
    c.close = circular ? " ...>" : ">";
    *first = e->message;
    return c;
  }
  case T_RECORD: {
    Record *r = as<Record>(v);
    out += "#<";
    out += symbol_name(as<RecordType>(r->rtype)->name);
    c.kind = OpenContainer::kItems;
    c.items = r->fields;
    c.n = r->n;
    c.names = as<RecordType>(r->rtype)->fields;
    c.space_first = true;
    c.close = ">";
    break;
  }
  case T_RECORD_TYPE:
    out += "#<record-type ";
    out += symbol_name(as<RecordType>(v)->name);
    out += '>';
    return std::nullopt;
  case T_PROMISE: out += "#<promise>"; return std::nullopt;
  case T_PARAMETER: out += "#<parameter>"; return std::nullopt;
  case T_CONTINUATION: out += "#<continuation>"; return std::nullopt;
  case T_ENVIRONMENT: out += "#<environment>"; return std::nullopt;
  case T_PORT:
    out += "#<port";
    if (is_string(as<Port>(v)->name)) {
      out += ' ';
      out += string_view_of(as<Port>(v)->name);
    }
    out += '>';
    return std::nullopt;
  case T_VALUES: {
    MultipleValues *mv = as<MultipleValues>(v);
    c.kind = OpenContainer::kItems;
    c.items = mv->items;
    c.n = mv->n;
    c.close = "";
    break;
  }
  default: {
    const TypeHooks &h = g_type_hooks[hdr(v)->type];
    if (h.print) {
      h.print(out, v, write);
      return std::nullopt;
    }
    out += "#<";
    out += h.name ? h.name : "object";
    out += '>';
    return std::nullopt;
  }
  }
  *has_first = false;  // kItems: next_element gives even the first, or closes
  return c;
}

// Thrown inside print_value only, when the output passed its limit.

// Depth-first with an explicit stack of open containers, so nesting is
// bounded by memory, not by the C stack. The stack holds Values in malloc
// memory, safe for the reason SearchStates gives.
static void print_iterative(std::string &out, Value root, bool write, Labels *labels,
                            const PrintLimit &limit) {
  std::vector<OpenContainer> open;
  Value v = root;
  bool w = write;
  for (uint32_t steps = 0;; steps++) {
    if (out.size() > limit.end) throw LimitReached{};
    if (limit.poll && (steps & 1023) == 0) check_interrupt();
    Value first;
    bool has_first;
    if (auto c = print_start(out, v, w, labels, open.size(), &first, &has_first, limit)) {
      open.push_back(*c);
      if (has_first) {
        v = first;
        w = open.back().write;
        continue;
      }
    }
    for (;;) {
      if (open.empty()) return;
      if (next_element(out, open.back(), labels, &v)) {
        w = open.back().write;
        break;
      }
      open.pop_back();
    }
  }
}

static void print_limited(std::string &out, Value v, bool write, const PrintLimit &limit) {
  size_t start = out.size();
  try {
    print_iterative(out, v, write, nullptr, limit);
    return;
  } catch (MaybeCyclic &) {
    out.resize(start);
  } catch (LimitReached &) {
    // The first attempt unfolds a cycle until it nests 1000 deep: a limit
    // reached before that may have cut an unfolding, so the limited text is
    // the labelled one, #0=#(#0# 2), not #(#(#(...
    out.resize(start);
  }
  Labels labels;
  for (Value t : find_labelled(v, false)) labels.ids.emplace(t.bits, -1);
  print_iterative(out, v, write, &labels, limit);
}

void print_value(std::string &out, Value v, bool write) { print_limited(out, v, write, PrintLimit{}); }

void print_value_interruptible(std::string &out, Value v, bool write) {
  print_limited(out, v, write, PrintLimit{SIZE_MAX, true});
}

void print_value_shared(std::string &out, Value v) {
  Labels labels;
  for (Value t : find_labelled(v, true)) labels.ids.emplace(t.bits, -1);
  print_iterative(out, v, true, &labels, PrintLimit{SIZE_MAX, true});
}

std::string write_string(Value v) {
  std::string s;
  print_value(s, v, true);
  return s;
}

void print_value_capped(std::string &out, Value v, bool write, size_t max_chars) {
  size_t start = out.size();
  try {
    print_limited(out, v, write, PrintLimit{start + max_chars, false});
  } catch (LimitReached &) {
  }
  if (out.size() - start > max_chars) {
    size_t cut = start + max_chars;
    // Never split a UTF-8 sequence (a symbol's or a displayed string's bytes).
    while (cut > start && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) cut--;
    out.resize(cut);
    out += "...";
  }
}

std::string display_string(Value v) {
  std::string s;
  print_value(s, v, false);
  return s;
}

}  // namespace kiln

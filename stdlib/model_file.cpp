// model_file.cpp — save-model / load-model (SPEC §7), format in docs/model-format.md.
//
// Invariant: a model file is line-oriented text, `kiln-model 1` first and
// `end` last, one item header per line, so every reading error can name the
// line. Floats are written as C99 hex floats (%a) and read with strtod, which
// round-trips every double bit for bit (NaN is written as `nan`, read back as
// the canonical NaN). The reader never trusts a count: every length is checked
// against what the file really holds before anything is allocated, so a
// damaged file raises an error and never crashes or allocates wildly.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../runtime/printer.h"
#include "../runtime/tensor.h"
#include "builtins.h"

namespace kiln {
namespace {

constexpr int kFormatVersion = 1;
constexpr int kMaxDepth = 10000;
constexpr int kFloatsPerLine = 8;

// ---- writing --------------------------------------------------------------------

void put_float(std::string &out, double d) {
  char buf[64];
  if (d != d) std::snprintf(buf, sizeof buf, "nan");
  else std::snprintf(buf, sizeof buf, "%a", d);  // "inf" / "-inf" for infinities
  out += buf;
}

void put_quoted(std::string &out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x;", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  out += '"';
}

[[noreturn]] void unsavable(Value v) {
  throw_errorf(
      "save-model: cannot save {} (only numbers, strings, symbols, booleans, chars, lists, vectors and "
      "tensors)",
      write_string_capped(v, kMessageValueLimit));
}

void write_value(std::string &out, Value v, int depth) {
  if (depth > kMaxDepth) throw_errorf("save-model: data nested deeper than {} levels", kMaxDepth);
  if (is_int(v)) {
    out += "int " + std::to_string(int_of(v)) + "\n";
  } else if (is_double(v)) {
    out += "float ";
    put_float(out, double_of(v));
    out += '\n';
  } else if (v == TRUE_V || v == FALSE_V) {
    out += v == TRUE_V ? "true\n" : "false\n";
  } else if (v == NIL) {
    out += "nil\n";
  } else if (is_char(v)) {
    out += "char " + std::to_string(char_of(v)) + "\n";
  } else if (is_string(v)) {
    out += "string ";
    put_quoted(out, string_view_of(v));
    out += '\n';
  } else if (is_symbol(v)) {
    out += "symbol ";
    put_quoted(out, symbol_name(v));
    out += '\n';
  } else if (is_pair(v)) {
    // Count the pairs (tortoise and hare, so a cyclic list is refused).
    int64_t n = 0;
    Value p = v, slow = v;
    while (is_pair(p)) {
      p = cdr(p);
      n++;
      if (n % 2 == 0) {
        slow = cdr(slow);
        if (p == slow && is_pair(p)) throw_errorf("save-model: cannot save a cyclic list");
      }
    }
    bool proper = p == NIL;
    out += (proper ? "list " : "dotted ") + std::to_string(n) + "\n";
    for (Value q = v; is_pair(q); q = cdr(q)) write_value(out, car(q), depth + 1);
    if (!proper) write_value(out, p, depth + 1);
  } else if (is_vector(v)) {
    Vector *vec = as<Vector>(v);
    out += "vector " + std::to_string(vec->len) + "\n";
    for (int64_t i = 0; i < vec->len; i++) write_value(out, vec->items[i], depth + 1);
  } else if (is_tensor(v)) {
    Tensor *t = tensor_of(v);
    fmt::format_to(std::back_inserter(out), "tensor {}", t->shape.rank);
    for (int i = 0; i < t->shape.rank; i++) fmt::format_to(std::back_inserter(out), " {}", t->shape.dim[i]);
    out += '\n';
    for (int64_t i = 0; i < t->size; i++) {
      put_float(out, t->data[i]);
      out += (i % kFloatsPerLine == kFloatsPerLine - 1 || i == t->size - 1) ? '\n' : ' ';
    }
  } else {
    unsavable(v);
  }
}

Value b_save_model(int, Value *argv) {
  arg_string("save-model", 1, argv[0]);
  std::string path(string_view_of(argv[0]));
  std::string text = "kiln-model " + std::to_string(kFormatVersion) + "\n";
  write_value(text, argv[1], 0);
  text += "end\n";
  // Atomic replace: a reader sees the old file or the whole new one.
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw_errorf("save-model: cannot write {}: {}", path, std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fflush(f) == 0 && ok;
  ok = fsync(fileno(f)) == 0 && ok;
  int err = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    if (ok) err = errno;
    std::remove(tmp.c_str());
    throw_errorf("save-model: cannot write {}: {}", path, std::strerror(err));
  }
  return UNSPEC;
}

// ---- reading --------------------------------------------------------------------

struct Reader {
  std::string path;
  std::vector<std::string> lines;
  size_t next = 0;  // index of the next unread line

  [[noreturn]] void truncated() const {
    throw_errorf("load-model: {}: truncated at line {}", path, lines.size() + 1);
  }
  [[noreturn]] void bad(size_t line_index, std::string_view why) const {
    throw_errorf("load-model: {}: bad data at line {}: {}", path, line_index + 1, why);
  }
  // The next line, split into its first word and the rest.
  size_t take(std::string &word, std::string &rest) {
    if (next >= lines.size()) truncated();
    const std::string &l = lines[next];
    size_t sp = l.find(' ');
    word = l.substr(0, sp);
    rest = sp == std::string::npos ? "" : l.substr(sp + 1);
    return next++;
  }
};

bool parse_int(const std::string &s, int64_t &out) {
  if (s.empty()) return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end) return false;
  out = v;
  return true;
}

bool parse_float(const std::string &s, double &out) {
  if (s.empty() || std::isspace((unsigned char)s[0])) return false;
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return *end == 0;
}

bool parse_quoted(const std::string &s, std::string &out) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return false;
  for (size_t i = 1; i + 1 < s.size(); i++) {
    char c = s[i];
    if (c == '"') return false;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i + 1 >= s.size()) return false;
    c = s[i];
    if (c == '"' || c == '\\') {
      out += c;
    } else if (c == 'x') {
      size_t semi = s.find(';', i);
      if (semi == std::string::npos || semi + 1 >= s.size() || semi == i + 1 || semi > i + 3) return false;
      int code = 0;
      for (size_t j = i + 1; j < semi; j++) {
        if (!std::isxdigit((unsigned char)s[j])) return false;
        code = code * 16 + (std::isdigit((unsigned char)s[j]) ? s[j] - '0' : (std::tolower(s[j]) - 'a' + 10));
      }
      out += char(code);
      i = semi;
    } else {
      return false;
    }
  }
  return true;
}

int64_t parse_count(Reader &r, size_t at, const std::string &rest) {
  int64_t n;
  if (!parse_int(rest, n) || n < 0) r.bad(at, "expected a count, got '" + rest + "'");
  // Each item takes at least one line, so a count larger than what is left is damage.
  if (uint64_t(n) > r.lines.size() - r.next) r.truncated();
  return n;
}

Value read_value(Reader &r, int depth) {
  std::string word, rest;
  size_t at = r.take(word, rest);
  if (depth > kMaxDepth) r.bad(at, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  if (word == "int") {
    int64_t n;
    if (!parse_int(rest, n)) r.bad(at, "expected an integer, got '" + rest + "'");
    return make_int(n);
  }
  if (word == "float") {
    double d;
    if (!parse_float(rest, d)) r.bad(at, "expected a float, got '" + rest + "'");
    return make_double(d);
  }
  if (word == "true" && rest.empty()) return TRUE_V;
  if (word == "false" && rest.empty()) return FALSE_V;
  if (word == "nil" && rest.empty()) return NIL;
  if (word == "char") {
    int64_t c;
    if (!parse_int(rest, c) || c < 0 || c > 255)
      r.bad(at, "expected a character code 0..255, got '" + rest + "'");
    return make_char(uint32_t(c));
  }
  if (word == "string" || word == "symbol") {
    std::string s;
    if (!parse_quoted(rest, s)) r.bad(at, "expected a quoted string, got '" + rest + "'");
    return word == "string" ? make_string(s) : intern(s);
  }
  if (word == "list" || word == "dotted") {
    int64_t n = parse_count(r, at, rest);
    if (word == "dotted" && n == 0) r.bad(at, "a dotted list needs at least one element");
    Value head = NIL, tail = NIL;
    for (int64_t i = 0; i < n; i++) {
      Value cell = cons(read_value(r, depth + 1), NIL);
      if (head == NIL) head = cell;
      else as<Pair>(tail)->cdr = cell;
      tail = cell;
    }
    if (word == "dotted") as<Pair>(tail)->cdr = read_value(r, depth + 1);
    return head;
  }
  if (word == "vector") {
    int64_t n = parse_count(r, at, rest);
    Value v = make_vector(n, FALSE_V);
    for (int64_t i = 0; i < n; i++) {
      Value item = read_value(r, depth + 1);
      as<Vector>(v)->items[i] = item;
    }
    return v;
  }
  if (word == "tensor") {
    // "tensor RANK D1 ... DR", then the elements, up to 8 per line.
    Shape s;
    std::vector<int64_t> nums;
    size_t pos = 0;
    while (pos < rest.size()) {
      size_t sp = rest.find(' ', pos);
      std::string tok = rest.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
      int64_t x;
      if (!parse_int(tok, x)) r.bad(at, "expected a tensor rank and shape, got '" + rest + "'");
      nums.push_back(x);
      pos = sp == std::string::npos ? rest.size() : sp + 1;
    }
    if (nums.empty() || nums[0] < 0 || nums[0] > kMaxRank || int64_t(nums.size()) != nums[0] + 1)
      r.bad(at, "expected a tensor rank 0.." + std::to_string(kMaxRank) + " and that many dimensions, got '" +
                    rest + "'");
    s.rank = int(nums[0]);
    uint64_t size = 1;
    for (int i = 0; i < s.rank; i++) {
      if (nums[i + 1] <= 0) r.bad(at, "tensor dimensions must be positive, got '" + rest + "'");
      s.dim[i] = nums[i + 1];
      size *= uint64_t(s.dim[i]);
      if (size > (uint64_t(1) << 40)) r.bad(at, "tensor shape too large: '" + rest + "'");
    }
    uint64_t need_lines = (size + kFloatsPerLine - 1) / kFloatsPerLine;
    if (need_lines > r.lines.size() - r.next) r.truncated();
    Tensor *t = alloc_tensor(s);
    Value keep = from_ptr(t);
    int64_t filled = 0;
    while (filled < int64_t(size)) {
      size_t line_at = r.next;
      if (line_at >= r.lines.size()) r.truncated();
      const std::string &l = r.lines[r.next++];
      size_t p = 0;
      int on_line = 0;
      while (p <= l.size()) {
        size_t sp = l.find(' ', p);
        std::string tok = l.substr(p, sp == std::string::npos ? std::string::npos : sp - p);
        double d;
        if (filled >= int64_t(size))
          r.bad(line_at, "more elements than a " + shape_string(s) + " tensor holds");
        if (!parse_float(tok, d)) r.bad(line_at, "expected a float, got '" + tok + "'");
        t->data[filled++] = d;
        on_line++;
        if (sp == std::string::npos) break;
        p = sp + 1;
      }
      int64_t want = std::min<int64_t>(kFloatsPerLine, int64_t(size) - (filled - on_line));
      if (on_line != want)
        r.bad(line_at, "expected " + std::to_string(want) + " tensor elements on this line");
    }
    return keep;
  }
  r.bad(at, "unknown item '" + word + "'");
}

Value b_load_model(int, Value *argv) {
  arg_string("load-model", 1, argv[0]);
  Reader r;
  r.path = std::string(string_view_of(argv[0]));
  FILE *f = std::fopen(r.path.c_str(), "rb");
  if (!f) throw_errorf("load-model: cannot open {}: {}", r.path, std::strerror(errno));
  std::string text;
  char buf[65536];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
  bool read_ok = !std::ferror(f);
  std::fclose(f);
  if (!read_ok) throw_errorf("load-model: cannot read {}", r.path);
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      // The writer ends every line with a newline: a last partial line means the file was cut.
      r.lines.push_back(text.substr(start));
      break;
    }
    r.lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  bool cut = !text.empty() && text.back() != '\n';
  if (r.lines.empty() || r.lines[0].rfind("kiln-model ", 0) != 0)
    throw_errorf("load-model: {}: not a Kiln model file", r.path);
  int64_t version;
  if (!parse_int(r.lines[0].substr(11), version))
    throw_errorf("load-model: {}: not a Kiln model file", r.path);
  if (version != kFormatVersion)
    throw_errorf("load-model: {}: unsupported format version {} (this Kiln reads version {})", r.path,
                 version, kFormatVersion);
  if (cut) r.lines.pop_back();  // never trust a partial line
  r.next = 1;
  Value v = read_value(r, 0);
  if (r.next >= r.lines.size()) r.truncated();
  if (r.lines[r.next] != "end") r.bad(r.next, "expected 'end' after the value");
  if (r.next + 1 != r.lines.size()) r.bad(r.next + 1, "unexpected text after 'end'");
  return v;
}

BuiltinRegistrar reg([] {
  defbuiltin(
      "save-model", 2, 2, b_save_model,
      "(save-model PATH VALUE): write VALUE (numbers, strings, symbols, booleans, chars, lists, vectors, "
      "tensors) to PATH atomically in the kiln-model text format.");
  defbuiltin("load-model", 1, 1, b_load_model, "(load-model PATH): read a value written by save-model.");
});

}  // namespace
}  // namespace kiln

// model_file.cpp — save-model / load-model (docs/tensors.md), format in docs/model-format.md.
//
// Invariant: a model file is line-oriented text, `kiln-model 2` first, then the
// value, `end`, and a `crc32 XXXXXXXX` line last (zlib's CRC-32 of every byte
// before it), one item header per line, so every reading error can name the
// line. The checksum is checked before anything is parsed: a damaged file is
// refused as damaged, never read as a different value. Floats are written as
// C99 hex floats (%a) and read with strtod, which round-trips every double bit
// for bit (NaN is written as `nan`, read back as the canonical NaN); the reader
// accepts only that form, so a decimal or out-of-range float is an error. The
// reader never trusts a count: every length is checked against what the file
// really holds before anything is allocated, so a damaged file raises an error
// and never crashes or allocates wildly. Version 1 (no checksum line) is still
// read, by the same strict rules.
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../runtime/eval.h"
#include "../runtime/exact.h"
#include "../runtime/printer.h"
#include "../runtime/tensor.h"
#include "../runtime/utf8.h"
#include "builtins.h"
#include "file_write.h"

namespace kiln {
namespace {

constexpr int kFormatVersion = 2;      // what save-model writes
constexpr int kOldestReadVersion = 1;  // version 1: no checksum line
constexpr const char *kChecksumWord = "crc32 ";
constexpr int kMaxDepth = 10000;
constexpr int kFloatsPerLine = 8;
constexpr int kBytesPerLine = 32;

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
      "save-model: cannot save {} (only numbers, strings, symbols, booleans, chars, lists, vectors, "
      "bytevectors and tensors)",
      error_value_string(v));
}

void write_value(std::string &out, Value v, int depth) {
  if (depth > kMaxDepth) throw_errorf("save-model: data nested deeper than {} levels", kMaxDepth);
  if (is_exact_integer(v)) {
    out += "int " + exact_to_string(v, 10) + "\n";
  } else if (is_ratnum(v)) {
    out += "rational " + exact_to_string(v, 10) + "\n";
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
    int64_t i = 0;
    for (Value q = v; is_pair(q); q = cdr(q)) {
      if ((i++ & 0xffff) == 0) check_interrupt();
      write_value(out, car(q), depth + 1);
    }
    if (!proper) write_value(out, p, depth + 1);
  } else if (is_vector(v)) {
    Vector *vec = as<Vector>(v);
    out += "vector " + std::to_string(vec->len) + "\n";
    for (int64_t i = 0; i < vec->len; i++) {
      if ((i & 0xffff) == 0) check_interrupt();
      write_value(out, vec->items[i], depth + 1);
    }
  } else if (is_bytevector(v)) {
    Bytevector *b = as<Bytevector>(v);
    out += "bytevector " + std::to_string(b->len) + "\n";
    for (int64_t i = 0; i < b->len; i++) {
      fmt::format_to(std::back_inserter(out), "{:02x}", b->bytes[i]);
      if (i % kBytesPerLine == kBytesPerLine - 1 || i == b->len - 1) out += '\n';
    }
  } else if (is_tensor(v)) {
    Tensor *t = tensor_of(v);
    fmt::format_to(std::back_inserter(out), "tensor {}", t->shape.rank);
    for (int i = 0; i < t->shape.rank; i++) fmt::format_to(std::back_inserter(out), " {}", t->shape.dim[i]);
    out += '\n';
    for (int64_t i = 0; i < t->size; i++) {
      if ((i & 0xffff) == 0) check_interrupt();  // 10^7 elements take seconds to format
      put_float(out, t->data[i]);
      out += (i % kFloatsPerLine == kFloatsPerLine - 1 || i == t->size - 1) ? '\n' : ' ';
    }
  } else {
    unsavable(v);
  }
}

uint32_t checksum_of(const char *data, size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes a uInt length: feed a large text in pieces.
  while (n > 0) {
    check_interrupt();  // a gigabyte takes a second or more
    uInt piece = uInt(std::min<size_t>(n, 1u << 26));
    crc = crc32(crc, reinterpret_cast<const Bytef *>(data), piece);
    data += piece;
    n -= piece;
  }
  return uint32_t(crc);
}

Value b_save_model(int, Value *argv) {
  std::string path = arg_path("save-model", 1, argv[0]);
  std::string text = "kiln-model " + std::to_string(kFormatVersion) + "\n";
  write_value(text, argv[1], 0);
  text += "end\n";
  text += fmt::format("{}{:08x}\n", kChecksumWord, checksum_of(text.data(), text.size()));
  write_file_atomically("save-model", path, [&text](FILE *f) {
    // In pieces, polling for Ctrl-C: gigabytes take seconds to write. An
    // interrupt leaves PATH as it was (file_write.h).
    constexpr size_t kPiece = size_t(1) << 24;
    for (size_t at = 0; at < text.size(); at += kPiece) {
      check_interrupt();
      size_t n = std::min(kPiece, text.size() - at);
      if (std::fwrite(text.data() + at, 1, n, f) != n) return false;
    }
    check_interrupt();  // before the file is flushed to disk
    return true;
  });
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

// Decimal digits with an optional '-', as std::to_string writes them: no '+',
// no spaces, nothing after.
bool parse_int(const std::string &s, int64_t &out) {
  size_t digits = s.size() > 0 && s[0] == '-' ? 1 : 0;
  if (digits == s.size()) return false;
  for (size_t i = digits; i < s.size(); i++)
    if (!std::isdigit((unsigned char)s[i])) return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end) return false;
  out = v;
  return true;
}

size_t hex_digits_at(const std::string &s, size_t i) {
  size_t start = i;
  while (i < s.size() && (std::isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f'))) i++;
  return i - start;
}

// What put_float writes and nothing else: `nan`, `inf`, `-inf`, or
// -?0xH[.H...]p[+-]D as printf's %a spells it (lowercase). Empty when `s` is one
// and `out` holds its value; otherwise the reason it is refused.
std::string parse_float(const std::string &s, double &out) {
  const std::string expected = "expected a hex float (like 0x1.8p+1), inf, -inf or nan, got '" + s + "'";
  if (s == "nan") {
    out = std::numeric_limits<double>::quiet_NaN();
    return "";
  }
  if (s == "inf" || s == "-inf") {
    out = s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return "";
  }
  size_t i = s.size() > 0 && s[0] == '-' ? 1 : 0;
  if (s.compare(i, 2, "0x") != 0) return expected;
  i += 2;
  size_t n = hex_digits_at(s, i);
  if (n == 0) return expected;
  bool nonzero = s.find_first_not_of('0', i) < i + n;
  i += n;
  if (i < s.size() && s[i] == '.') {
    n = hex_digits_at(s, ++i);
    if (n == 0) return expected;
    nonzero = nonzero || s.find_first_not_of('0', i) < i + n;
    i += n;
  }
  if (i + 1 >= s.size() || s[i] != 'p' || (s[i + 1] != '+' && s[i + 1] != '-')) return expected;
  i += 2;
  if (i == s.size()) return expected;
  for (; i < s.size(); i++)
    if (!std::isdigit((unsigned char)s[i])) return expected;
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  if (*end) return expected;
  // Too large for a double, or so small that it rounds to zero: not a value
  // save-model can have written.
  if (std::isinf(out) || (out == 0 && nonzero)) return "float out of range for a double: '" + s + "'";
  return "";
}

std::string latin1_to_utf8(std::string_view bytes) {
  std::string out;
  for (unsigned char b : bytes) utf8_append(out, b);
  return out;
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

// Decimal digits with an optional '-' (the writer's form for exact integers of any size).
bool is_decimal_integer(std::string_view s) {
  size_t digits = !s.empty() && s[0] == '-' ? 1 : 0;
  if (digits == s.size()) return false;
  for (size_t i = digits; i < s.size(); i++)
    if (!std::isdigit((unsigned char)s[i])) return false;
  return true;
}
Value exact_integer_text(std::string_view s) {
  bool negative = s[0] == '-';
  return exact_integer_from_digits(s.substr(negative ? 1 : 0), 10, negative);
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
    if (!is_decimal_integer(rest)) r.bad(at, "expected an integer, got '" + rest + "'");
    return exact_integer_text(rest);
  }
  if (word == "rational") {
    size_t slash = rest.find('/');
    std::string_view text(rest), num = text.substr(0, slash), den = text.substr(slash + 1);
    if (slash == std::string::npos || !is_decimal_integer(num) || !is_decimal_integer(den) || den[0] == '-')
      r.bad(at, "expected a ratio N/D, got '" + rest + "'");
    Value d = exact_integer_text(den);
    if (exact_sign(d) == 0) r.bad(at, "zero denominator in '" + rest + "'");
    return make_ratio(exact_integer_text(num), d);
  }
  if (word == "float") {
    double d;
    std::string why = parse_float(rest, d);
    if (!why.empty()) r.bad(at, why);
    return make_double(d);
  }
  if (word == "true" && rest.empty()) return TRUE_V;
  if (word == "false" && rest.empty()) return FALSE_V;
  if (word == "nil" && rest.empty()) return NIL;
  if (word == "char") {
    int64_t c;
    if (!parse_int(rest, c) || !is_scalar_value(c))
      r.bad(at, "expected a character code (0 to 1114111, not 55296 to 57343), got '" + rest + "'");
    return make_char(uint32_t(c));
  }
  if (word == "string" || word == "symbol") {
    std::string s;
    if (!parse_quoted(rest, s)) r.bad(at, "expected a quoted string, got '" + rest + "'");
    // The quoted bytes are UTF-8. Kiln wrote Latin-1 before its strings were
    // Unicode: bytes that are not UTF-8 are read as the Latin-1 text they were.
    if (utf8_invalid_offset(s) < s.size()) s = latin1_to_utf8(s);
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
  if (word == "bytevector") {
    // "bytevector N", then the bytes as lowercase hex pairs, kBytesPerLine per line.
    int64_t n;
    if (!parse_int(rest, n) || n < 0) r.bad(at, "expected a count, got '" + rest + "'");
    if (uint64_t(n) > uint64_t(kBytesPerLine) * (r.lines.size() - r.next)) r.truncated();
    Value v = make_bytevector(n, 0);
    for (int64_t i = 0; i < n; i += kBytesPerLine) {
      std::string line, more;
      size_t lat = r.take(line, more);
      int64_t k = std::min<int64_t>(kBytesPerLine, n - i);
      if (!more.empty() || int64_t(line.size()) != 2 * k || hex_digits_at(line, 0) != line.size())
        r.bad(lat, "expected " + std::to_string(k) + " bytes as hex pairs, got '" + line + "'");
      for (int64_t j = 0; j < k; j++)
        as<Bytevector>(v)->bytes[i + j] = uint8_t(std::stoi(line.substr(size_t(2 * j), 2), nullptr, 16));
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
      // Checked as it is multiplied: a wrapped product (2^32 x 2^32 is 0) would pass the bound.
      if (__builtin_mul_overflow(size, uint64_t(s.dim[i]), &size) || size > (uint64_t(1) << 40))
        r.bad(at, "tensor shape too large: '" + rest + "'");
    }
    uint64_t need_lines = (size + kFloatsPerLine - 1) / kFloatsPerLine;
    if (need_lines > r.lines.size() - r.next) r.truncated();
    Tensor *t = alloc_tensor(s);
    Value keep = from_ptr(t);
    int64_t filled = 0;
    while (filled < int64_t(size)) {
      size_t line_at = r.next;
      if ((line_at & 0xfff) == 0) check_interrupt();
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
        std::string why = parse_float(tok, d);
        if (!why.empty()) r.bad(line_at, why);
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

// The last line is `crc32 ` and eight lowercase hex digits, the CRC-32 of every
// byte before that line. Called with the file's complete lines, so `text` ends
// with the checksum line and its newline. Hex digits must be lowercase: with
// either case accepted, a flipped case bit would go unnoticed.
void check_checksum(const Reader &r, const std::string &text) {
  size_t at = r.lines.size() - 1;
  const std::string &line = r.lines[at];
  size_t word = std::strlen(kChecksumWord);
  if (line.compare(0, word, kChecksumWord) != 0)
    throw_errorf("load-model: {}: no checksum line at line {} (the file is truncated or damaged)", r.path,
                 at + 1);
  if (line.size() != word + 8 || hex_digits_at(line, word) != 8)
    r.bad(at, "expected 'crc32' and 8 lowercase hex digits, got '" + line + "'");
  uint32_t stored = uint32_t(std::strtoul(line.c_str() + word, nullptr, 16));
  uint32_t actual = checksum_of(text.data(), text.size() - line.size() - 1);
  if (stored != actual)
    throw_errorf(
        "load-model: {}: checksum mismatch (the file says {:08x}, its contents give {:08x}): the file is "
        "damaged",
        r.path, stored, actual);
}

// The file's bytes into `text`; false on a read error. The first line is
// checked as soon as it is in: a file that does not start with `kiln-model `
// and a version (such as /dev/zero, which never ends) is refused before more
// of it is read.
bool read_model_text(FILE *f, const std::string &path, std::string &text) {
  static const std::string kMagic = "kiln-model ";
  constexpr size_t kLongestFirstLine = 32;  // "kiln-model " and a version number
  bool first_line_seen = false;
  char buf[65536];
  size_t got;
  try {
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) {
      check_interrupt();
      text.append(buf, got);
      if (first_line_seen) continue;
      size_t nl = text.find('\n');
      size_t line_len = nl == std::string::npos ? text.size() : nl;
      size_t head = std::min(line_len, kMagic.size());
      if (text.compare(0, head, kMagic, 0, head) != 0 || line_len > kLongestFirstLine)
        throw_errorf("load-model: {}: not a Kiln model file", path);
      first_line_seen = nl != std::string::npos;
    }
  } catch (const std::bad_alloc &) {
    size_t had = text.size();
    std::string().swap(text);
    throw_errorf("load-model: {}: out of memory after reading {} bytes", path, had);
  }
  return !std::ferror(f);
}

Value b_load_model(int, Value *argv) {
  Reader r;
  r.path = arg_path("load-model", 1, argv[0]);
  FILE *f = std::fopen(r.path.c_str(), "rb");
  if (!f) throw_errorf("load-model: cannot open {}: {}", r.path, std::strerror(errno));
  struct Closer {
    FILE *f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  std::string text;
  bool read_ok = read_model_text(f, r.path, text);
  if (!read_ok) throw_errorf("load-model: cannot read {}", r.path);
  size_t start = 0;
  while (start < text.size()) {
    if ((r.lines.size() & 0xffff) == 0) check_interrupt();
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
  if (version < kOldestReadVersion || version > kFormatVersion)
    throw_errorf("load-model: {}: unsupported format version {} (this Kiln reads versions {} to {})", r.path,
                 version, kOldestReadVersion, kFormatVersion);
  if (cut) r.lines.pop_back();  // never trust a partial line
  if (version >= 2) {
    if (cut || r.lines.size() < 2) r.truncated();
    check_checksum(r, text);
    r.lines.pop_back();
  }
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

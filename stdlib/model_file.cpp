// model_file.cpp — save-model / load-model (docs/tensors.md), format in docs/model-format.md.
//
// Invariant: save-model writes the binary format (version 2, SPEC §16): the
// value as line-oriented text with each tensor's place and CRC-32, a checksum
// line, then the tensors' raw bytes. The text formats (version 1, and version 2
// text from Kiln before the binary format) are `kiln-model N` first, then the
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
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
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

#include "runtime/eval.h"
#include "runtime/exact.h"
#include "runtime/list_builder.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "runtime/threadpool.h"
#include "runtime/utf8.h"
#include "stdlib/builtins.h"
#include "stdlib/file_write.h"
#include "stdlib/mapped_file.h"
#include "stdlib/port_args.h"

namespace kiln {
namespace {

// Versions (docs/model-format.md, "Versions and old files"): 1 is text; 2 is the
// binary format save-model writes (SPEC §16), and also, in files from Kiln before
// the binary format, text with a checksum line, told apart by line 2 (`header N`
// only in the binary format); 3 is the binary format as this format's first
// builds numbered it, read alike.
constexpr int kOldestReadVersion = 1;
constexpr int kNewestReadVersion = 3;
constexpr const char *kBinaryMagic = "kiln-model 2\n";       // what save-model writes, then "header N"
constexpr const char *kEarlyBinaryMagic = "kiln-model 3\n";  // the same layout
constexpr size_t kMagicLength = 13;                          // both magics' length
constexpr const char *kBinaryLine2 = "header ";
constexpr uint64_t kAlign = 64;        // every tensor's data starts at a multiple of this
constexpr const char *kDtype = "<f8";  // NumPy's spelling: little-endian float64
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

// The tensors of a binary file in the order the header names them, each
// with the offset of its data from the data area's start and its checksum.
// Their checksums are left as zeros in the header text and filled in as the
// data is written (crc_at: where each one's 8 digits are in the text), so the
// floats are read once, not twice.
struct DataPlan {
  std::vector<Tensor *> tensors;
  std::vector<size_t> crc_at;
  uint64_t next_offset = 0;
};

uint64_t align_up(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

uint32_t checksum_of(const char *data, size_t n) {
  uLong crc = crc32_z(0L, Z_NULL, 0);
  // In pieces, polling for Ctrl-C: a gigabyte of version 2 text takes a second or more.
  while (n > 0) {
    check_interrupt();
    size_t piece = std::min<size_t>(n, size_t(1) << 26);
    crc = crc32_z(crc, reinterpret_cast<const Bytef *>(data), piece);
    data += piece;
    n -= piece;
  }
  return uint32_t(crc);
}

void write_value(std::string &out, Value v, int depth, DataPlan &plan) {
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
      write_value(out, car(q), depth + 1, plan);
    }
    if (!proper) write_value(out, p, depth + 1, plan);
  } else if (is_vector(v)) {
    Vector *vec = as<Vector>(v);
    out += "vector " + std::to_string(vec->len) + "\n";
    for (int64_t i = 0; i < vec->len; i++) {
      if ((i & 0xffff) == 0) check_interrupt();
      write_value(out, vec->items[i], depth + 1, plan);
    }
  } else if (is_bytevector(v)) {
    Bytevector *b = as<Bytevector>(v);
    out += "bytevector " + std::to_string(b->len) + "\n";
    for (int64_t i = 0; i < b->len; i++) {
      fmt::format_to(std::back_inserter(out), "{:02x}", b->bytes[i]);
      if (i % kBytesPerLine == kBytesPerLine - 1 || i == b->len - 1) out += '\n';
    }
  } else if (is_tensor(v)) {
    // "tensor <f8 R D1 ... DR at OFFSET crc32 XXXXXXXX"; the bytes go to the data area.
    Tensor *t = tensor_of(v);
    fmt::format_to(std::back_inserter(out), "tensor {} {}", kDtype, t->shape.rank);
    for (int i = 0; i < t->shape.rank; i++) fmt::format_to(std::back_inserter(out), " {}", t->shape.dim[i]);
    if ((plan.tensors.size() & 0xff) == 0) check_interrupt();
    fmt::format_to(std::back_inserter(out), " at {} crc32 ", plan.next_offset);
    plan.crc_at.push_back(out.size());
    out += "00000000\n";
    plan.tensors.push_back(t);
    plan.next_offset = align_up(plan.next_offset + uint64_t(t->size) * sizeof(double));
  } else {
    unsavable(v);
  }
}

// One piece of a tensor's data: where it comes from, where it goes in the
// file, its CRC-32 once written, and errno if writing it failed.
struct WritePiece {
  const char *from;
  size_t bytes;
  uint64_t file_at;
  uint32_t crc;
  int error;
};
constexpr size_t kWritePiece = size_t(1) << 22;

void write_piece(void *ctx, int64_t k) {
  auto *pieces = static_cast<std::pair<int, WritePiece *> *>(ctx);
  WritePiece &p = pieces->second[k];
  p.crc = uint32_t(crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef *>(p.from), p.bytes));
  p.error = 0;
  for (size_t done = 0; done < p.bytes;) {
    ssize_t n = pwrite(pieces->first, p.from + done, p.bytes - done, off_t(p.file_at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      p.error = n < 0 ? errno : EIO;
      return;
    }
    done += size_t(n);
  }
}

// Version 2 (binary): "kiln-model 2", "header N" (the bytes of the value's lines and
// "end" that follow), those lines, the checksum line over everything before it,
// zeros up to a multiple of 64, then each tensor's bytes, each padded with
// zeros to a multiple of 64 but the last (docs/model-format.md). The header
// goes first with its checksums unknown; the data is cut into 4 MiB pieces,
// each checksummed and written at its place (pwrite) by the compute threads,
// so the checksums cost no time of their own; then the checksums are joined
// per tensor in order (crc32_combine) and the header is written again,
// complete (the same length), over the first one.
Value b_save_model(int, Value *argv) {
  std::string path = arg_path("save-model", 1, argv[0]);
  DataPlan plan;
  std::string body;
  write_value(body, argv[1], 0, plan);
  body += "end\n";
  std::string text = fmt::format("{}header {}\n", kBinaryMagic, body.size());
  size_t body_at = text.size();
  text += body;
  size_t crc_line_at = text.size();
  text += fmt::format("{}{:08x}\n", kChecksumWord, 0);
  text.resize(align_up(text.size()), '\0');
  std::vector<WritePiece> pieces;
  std::vector<size_t> first_piece;  // of each tensor, and one past the last
  uint64_t at = text.size();
  for (Tensor *t : plan.tensors) {
    first_piece.push_back(pieces.size());
    const char *d = reinterpret_cast<const char *>(t->data);
    size_t n = size_t(t->size) * sizeof(double);
    for (size_t done = 0; done < n; done += kWritePiece)
      pieces.push_back({d + done, std::min(kWritePiece, n - done), at + done, 0, 0});
    at = align_up(at + n);
  }
  first_piece.push_back(pieces.size());
  write_file_atomically("save-model", path, [&](FILE *f) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0) return false;
    std::pair<int, WritePiece *> job{fileno(f), pieces.data()};
    // Ctrl-C is polled between batches of pieces (about 64 MiB each).
    constexpr size_t kBatch = 16;
    for (size_t first = 0; first < pieces.size(); first += kBatch) {
      check_interrupt();
      std::pair<int, WritePiece *> batch{job.first, job.second + first};
      size_t n = std::min(kBatch, pieces.size() - first);
      parallel_for(int64_t(n), n > 1 ? compute_threads() : 1, write_piece, &batch);
      for (size_t k = first; k < first + n; k++)
        if (pieces[k].error) {
          errno = pieces[k].error;
          return false;
        }
    }
    static const char zeros[kAlign] = {};
    for (size_t k = 0; k < plan.tensors.size(); k++) {
      uLong crc = crc32_z(0L, Z_NULL, 0);
      for (size_t p = first_piece[k]; p < first_piece[k + 1]; p++)
        crc = crc32_combine(crc, pieces[p].crc, z_off_t(pieces[p].bytes));
      text.replace(body_at + plan.crc_at[k], 8, fmt::format("{:08x}", uint32_t(crc)));
      // The zeros after every tensor's data but the last (a new file has
      // zeros there already; they are written so the file holds no holes).
      if (k + 1 < plan.tensors.size()) {
        const WritePiece &last = pieces[first_piece[k + 1] - 1];
        uint64_t end = last.file_at + last.bytes;
        size_t pad = size_t(align_up(end) - end);
        if (pad && pwrite(fileno(f), zeros, pad, off_t(end)) != ssize_t(pad)) return false;
      }
    }
    text.replace(crc_line_at + std::strlen(kChecksumWord), 8,
                 fmt::format("{:08x}", checksum_of(text.data(), crc_line_at)));
    return std::fseek(f, 0, SEEK_SET) == 0 && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  });
  return UNSPEC;
}

// ---- reading --------------------------------------------------------------------

struct Reader {
  std::string path;
  std::vector<std::string> lines;
  size_t next = 0;  // index of the next unread line
  // The binary format only: the mapped file, where its data area starts, and where the
  // data read so far ends (relative to the data area).
  const MappedFile *map = nullptr;
  uint64_t data_start = 0;
  uint64_t data_end = 0;

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

Value read_mapped_tensor(Reader &r, size_t at, const std::string &rest);

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
    ListBuilder items;
    for (int64_t i = 0; i < n; i++) items.push(read_value(r, depth + 1));
    return items.finish(word == "dotted" ? read_value(r, depth + 1) : NIL);
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
  if (word == "tensor" && r.map) return read_mapped_tensor(r, at, rest);
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

// ---- the binary format: the header's lines, the data mapped ----------------------

std::vector<std::string> split_words(const std::string &s) {
  std::vector<std::string> words;
  size_t pos = 0;
  for (;;) {
    size_t sp = s.find(' ', pos);
    words.push_back(s.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos));
    if (sp == std::string::npos) return words;
    pos = sp + 1;
  }
}

bool all_zero(const std::string &s) { return s.find_first_not_of('\0') == std::string::npos; }

[[noreturn]] void cut_while_reading(const Reader &r) {
  throw_errorf("load-model: {}: the file was cut short while it was being read", r.path);
}

// Bytes [from, from + n) of the mapping, which the caller has checked lie
// inside the file as it was mapped.
std::string copy_out(const Reader &r, uint64_t from, uint64_t n) {
  std::string s(n, '\0');
  uint32_t crc = 0;
  if (!copy_from_mapping(s.data(), r.map->bytes + from, n, crc)) cut_while_reading(r);
  return s;
}

// Copies `bytes` out of the mapping and gives their CRC-32: in pieces spread
// over the compute threads (each piece's CRC-32 its own, joined in order by
// crc32_combine, so the result does not depend on the threads); false when the
// file was cut underneath.
struct CopyJob {
  char *to;
  const unsigned char *from;
  uint64_t bytes;
  std::vector<uint32_t> crcs;
  std::vector<char> ok;
};
constexpr uint64_t kCopyPiece = uint64_t(1) << 22;

void copy_piece(void *ctx, int64_t k) {
  auto *job = static_cast<CopyJob *>(ctx);
  uint64_t at = uint64_t(k) * kCopyPiece, n = std::min(kCopyPiece, job->bytes - at);
  uint32_t crc = uint32_t(crc32_z(0L, Z_NULL, 0));
  job->ok[size_t(k)] = copy_from_mapping(job->to + at, job->from + at, n, crc);
  job->crcs[size_t(k)] = crc;
}

bool copy_tensor_data(char *to, const unsigned char *from, uint64_t bytes, uint32_t &crc) {
  CopyJob job{to, from, bytes, {}, {}};
  uint64_t pieces = (bytes + kCopyPiece - 1) / kCopyPiece;
  job.crcs.resize(pieces);
  job.ok.resize(pieces);
  // Ctrl-C is polled between batches of pieces (about 64 MiB each).
  constexpr uint64_t kBatch = 16;
  for (uint64_t first = 0; first < pieces; first += kBatch) {
    check_interrupt();
    struct Batch {
      CopyJob *job;
      uint64_t first;
    } batch{&job, first};
    uint64_t n = std::min(kBatch, pieces - first);
    parallel_for(
        int64_t(n), n > 1 ? compute_threads() : 1,
        [](void *ctx, int64_t k) {
          auto *b = static_cast<Batch *>(ctx);
          copy_piece(b->job, int64_t(b->first) + k);
        },
        &batch);
  }
  uLong c = crc32_z(0L, Z_NULL, 0);
  for (uint64_t k = 0; k < pieces; k++) {
    if (!job.ok[k]) return false;
    c = crc32_combine(c, job.crcs[k], z_off_t(std::min(kCopyPiece, bytes - k * kCopyPiece)));
  }
  crc = uint32_t(c);
  return true;
}

// "tensor <f8 R D1 ... DR at OFFSET crc32 XXXXXXXX": every field is checked,
// the data's place against the layout the writer produces (each tensor right
// after the previous one, at the next multiple of 64) and against the file's
// size, before the tensor is allocated; the bytes against their checksum as
// they are copied.
Value read_mapped_tensor(Reader &r, size_t at, const std::string &rest) {
  std::vector<std::string> w = split_words(rest);
  const std::string form = "expected '<f8', a rank, its dimensions, 'at' OFFSET and 'crc32' XXXXXXXX, got '";
  if (w.empty() || w[0] != kDtype) {
    if (w.size() > 1 && !w[0].empty() && (w[0][0] == '<' || w[0][0] == '>' || w[0][0] == '|'))
      r.bad(at, "unsupported tensor dtype '" + w[0] + "' (this Kiln reads <f8)");
    r.bad(at, form + rest + "'");
  }
  int64_t rank;
  if (w.size() < 2 || !parse_int(w[1], rank) || rank < 0 || rank > kMaxRank || w.size() != size_t(rank) + 6 ||
      w[size_t(rank) + 2] != "at" || w[size_t(rank) + 4] != "crc32")
    r.bad(at, form + rest + "'");
  Shape s;
  s.rank = int(rank);
  uint64_t count = 1;
  for (int i = 0; i < s.rank; i++) {
    int64_t d;
    if (!parse_int(w[size_t(i) + 2], d) || d <= 0)
      r.bad(at, "tensor dimensions must be positive integers, got '" + rest + "'");
    s.dim[i] = d;
    // Checked as it grows, so no product of dimensions can wrap around.
    if (__builtin_mul_overflow(count, uint64_t(d), &count) || count > (uint64_t(1) << 40))
      r.bad(at, "tensor shape too large: '" + rest + "'");
  }
  int64_t offset;
  const std::string &crc_text = w[size_t(rank) + 5];
  if (!parse_int(w[size_t(rank) + 3], offset) || offset < 0)
    r.bad(at, "expected a data offset, got '" + w[size_t(rank) + 3] + "'");
  if (crc_text.size() != 8 || hex_digits_at(crc_text, 0) != 8)
    r.bad(at, "expected 8 lowercase hex digits after crc32, got '" + crc_text + "'");
  uint64_t expected = align_up(r.data_end);
  if (uint64_t(offset) != expected)
    r.bad(at, fmt::format("tensor data at offset {}, expected {} (each tensor's data follows the previous "
                          "one's at the next multiple of {})",
                          offset, expected, kAlign));
  uint64_t bytes = count * sizeof(double);
  uint64_t from = r.data_start + uint64_t(offset);
  if (from > r.map->size || r.map->size - from < bytes)
    throw_errorf(
        "load-model: {}: truncated: the tensor at line {} (shape {}) needs bytes {} to {}, the file has {}",
        r.path, at + 1, shape_string(s), from, from + bytes, r.map->size);
  // The padding before this tensor: zeros, so no byte goes unchecked.
  uint64_t pad_from = r.data_start + r.data_end;
  if (!all_zero(copy_out(r, pad_from, from - pad_from)))
    throw_errorf(
        "load-model: {}: nonzero padding before the data of the tensor at line {}: the file is damaged",
        r.path, at + 1);
  Tensor *t = alloc_tensor(s);
  Value keep = from_ptr(t);
  uint32_t crc = 0;
  if (!copy_tensor_data(reinterpret_cast<char *>(t->data), r.map->bytes + from, bytes, crc))
    cut_while_reading(r);
  uint32_t stored = uint32_t(std::strtoul(crc_text.c_str(), nullptr, 16));
  if (crc != stored)
    throw_errorf(
        "load-model: {}: the data of the tensor at line {} (shape {}) is damaged (its bytes give checksum "
        "{:08x}, the file says {})",
        r.path, at + 1, shape_string(s), crc, crc_text);
  r.data_end = uint64_t(offset) + bytes;
  return keep;
}

// The file is open on `fd` and starts with kBinaryMagic and "header ", or with
// kEarlyBinaryMagic.
Value load_binary(Reader &r, int fd) {
  MappedFile map;
  std::string why = map_file(fd, map);
  if (!why.empty()) file_error(fmt::format("load-model: cannot read {}: {}", r.path, why));
  r.map = &map;
  uint64_t size = map.size;
  uint64_t pos = kMagicLength;
  // Line 2: "header N", N the bytes of the value's lines and "end" after it.
  constexpr uint64_t kLongestHeaderLine = 32;
  std::string start = copy_out(r, 0, std::min(size, pos + kLongestHeaderLine));
  size_t nl = start.find('\n', pos);
  if (nl == std::string::npos && start.size() < pos + kLongestHeaderLine)
    throw_errorf("load-model: {}: truncated at line 2", r.path);
  std::string line2;
  for (size_t i = pos; i < std::min(nl, start.size()); i++) {  // quoted in messages: printable ASCII only
    unsigned char c = start[i];
    if (c >= 0x20 && c < 0x7f) line2 += char(c);
    else line2 += fmt::format("\\x{:02x};", c);
  }
  int64_t n;
  if (nl == std::string::npos || line2.rfind("header ", 0) != 0 || !parse_int(line2.substr(7), n) || n < 4)
    throw_errorf("load-model: {}: bad data at line 2: expected 'header' and a byte count, got '{}'", r.path,
                 line2);
  uint64_t text_end = nl + 1 + uint64_t(n);
  uint64_t crc_line = std::strlen(kChecksumWord) + 9;
  if (uint64_t(n) > size || text_end + crc_line > size)
    throw_errorf(
        "load-model: {}: truncated: line 2 says the header has {} bytes, the file has {} after line 2",
        r.path, n, size - nl - 1);
  r.data_start = align_up(text_end + crc_line);
  // The header, its checksum line and the padding after it, copied out of the mapping.
  std::string text = copy_out(r, 0, std::min(r.data_start, size));
  if (text.compare(text_end - 4, 4, "end\n") != 0 || text[text_end - 5] != '\n')
    throw_errorf("load-model: {}: bad data: the header's {} bytes do not end with the line 'end'", r.path, n);
  for (uint64_t at = 0; at < text_end;) {
    uint64_t end = text.find('\n', at);  // found: the text ends with a newline
    r.lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  r.lines.push_back(text.substr(text_end, crc_line - 1));
  // check_checksum wants the text through the checksum line's newline.
  check_checksum(r, text.substr(0, text_end + crc_line));
  if (text[text_end + crc_line - 1] != '\n')
    r.bad(r.lines.size() - 1, "expected a newline after the checksum");
  r.lines.pop_back();
  if (!all_zero(text.substr(text_end + crc_line)))
    throw_errorf("load-model: {}: nonzero padding after the checksum line: the file is damaged", r.path);
  r.next = 2;
  Value v = read_value(r, 0);
  if (r.next >= r.lines.size() || r.lines[r.next] != "end") r.bad(r.next, "expected 'end' after the value");
  if (r.next + 1 != r.lines.size()) r.bad(r.next + 1, "unexpected text after 'end'");
  uint64_t expected = r.data_start + r.data_end;
  if (size != expected)
    throw_errorf(
        "load-model: {}: {} bytes after the last tensor's data (the data ends at byte {}, the file has {})",
        r.path, size > expected ? "unexpected" : "missing", expected, size);
  return v;
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
  // The binary format is recognised by its first two lines and read through a mapping.
  int fd = open(r.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    struct Closer {
      int fd;
      ~Closer() { close(fd); }
    } closer{fd};
    // "kiln-model 2" then "header ": the binary format; "kiln-model 2" then a
    // value line: the old text format of that number.
    static_assert(sizeof "kiln-model 2\n" - 1 == kMagicLength && sizeof "kiln-model 3\n" - 1 == kMagicLength);
    char head[32];
    size_t want = kMagicLength + std::strlen(kBinaryLine2);
    ssize_t got = pread(fd, head, want, 0);
    bool early = got >= ssize_t(kMagicLength) && std::memcmp(head, kEarlyBinaryMagic, kMagicLength) == 0;
    bool binary = got == ssize_t(want) && std::memcmp(head, kBinaryMagic, kMagicLength) == 0 &&
                  std::memcmp(head + kMagicLength, kBinaryLine2, want - kMagicLength) == 0;
    if (early || binary) return load_binary(r, fd);
  }
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
  if (version == 3)  // its first line would have been recognised above
    throw_errorf(
        "load-model: {}: truncated at line 1, or not a regular file (version 3 is read by mapping the "
        "file)",
        r.path);
  if (version < kOldestReadVersion || version > kNewestReadVersion)
    throw_errorf("load-model: {}: unsupported format version {} (this Kiln reads versions {} to {})", r.path,
                 version, kOldestReadVersion, kNewestReadVersion);
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

BuiltinRegistrar model_file_registrar([] {
  defbuiltin("save-model", 2, 2, b_save_model,
             "(save-model PATH VALUE): write VALUE (numbers, strings, symbols, booleans, chars, lists, "
             "vectors, bytevectors, tensors) to PATH atomically in the kiln-model format (version 2: a text "
             "header, the tensors' float64 bytes, a checksum each).");
  defbuiltin("load-model", 1, 1, b_load_model, "(load-model PATH): read a value written by save-model.");
});

}  // namespace
}  // namespace kiln

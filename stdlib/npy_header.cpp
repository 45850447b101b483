// npy_header.cpp — parsing and writing .npy headers (npy_header.h).
#include "stdlib/npy_header.h"

#include <fmt/format.h>

#include <vector>

namespace kiln {
namespace {

constexpr int kMaxNesting = 16;     // brackets inside a header value
constexpr size_t kShownValue = 60;  // how much of a bad value a message quotes
constexpr int kGrowthDigits = 21;   // NumPy's GROWTH_AXIS_MAX_DIGITS
constexpr size_t kNpyAlign = 64;    // NumPy's ARRAY_ALIGN

// One Python literal of the subset a header uses.
struct PyValue {
  enum Kind { Str, Bool, Int, Tuple, List, None, Other } kind = Other;
  std::string str;             // Str
  bool flag = false;           // Bool
  int64_t num = 0;             // Int
  bool too_large = false;      // Int beyond int64
  std::vector<PyValue> items;  // Tuple, List
  std::string_view text;       // the source, for messages
};

std::string shown(std::string_view text) {
  if (text.size() <= kShownValue) return std::string(text);
  return std::string(text.substr(0, kShownValue)) + "...";
}

struct Parser {
  std::string_view s;
  size_t offset;  // of s[0] in the file
  size_t pos = 0;
  std::string error;

  bool fail(std::string_view what) {
    if (error.empty()) error = fmt::format("malformed header at byte {}: {}", offset + pos, what);
    return false;
  }
  void skip_space() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r')) pos++;
  }
  bool at(char c) {
    skip_space();
    return pos < s.size() && s[pos] == c;
  }

  bool string(std::string &out) {
    char q = s[pos++];
    size_t start = pos;
    while (pos < s.size() && s[pos] != q) {
      if (s[pos] == '\\') return fail("backslash escapes are not supported in header strings");
      if (s[pos] == '\n') break;
      pos++;
    }
    if (pos >= s.size() || s[pos] != q) {
      pos = start - 1;
      return fail("unterminated string");
    }
    out = std::string(s.substr(start, pos - start));
    pos++;
    return true;
  }

  static bool word_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
  }

  bool value(PyValue &v, int depth) {
    skip_space();
    size_t start = pos;
    if (pos >= s.size()) return fail("expected a value");
    char c = s[pos];
    bool ok;
    if (c == '\'' || c == '"') {
      v.kind = PyValue::Str;
      ok = string(v.str);
    } else if (c == '(' || c == '[') {
      if (depth >= kMaxNesting) return fail("brackets nested too deeply");
      char close = c == '(' ? ')' : ']';
      pos++;
      size_t commas = 0;
      ok = true;
      while (ok && !at(close)) {
        v.items.emplace_back();
        ok = value(v.items.back(), depth + 1);
        if (ok && at(',')) {
          pos++;
          commas++;
        } else if (ok && !at(close)) {
          ok = fail(fmt::format("expected ',' or '{}'", close));
        }
      }
      if (!ok) return false;
      pos++;
      // (3) is the number 3 in Python; a one-element tuple is (3,).
      if (c == '(' && v.items.size() == 1 && commas == 0) {
        PyValue inner = std::move(v.items[0]);
        v = std::move(inner);
        v.text = s.substr(start, pos - start);
        return true;
      }
      v.kind = c == '(' ? PyValue::Tuple : PyValue::List;
    } else if (word_char(c) || c == '-' || c == '+') {
      pos++;
      while (pos < s.size() && word_char(s[pos])) pos++;
      std::string_view w = s.substr(start, pos - start);
      ok = true;
      if (w == "True" || w == "False") {
        v.kind = PyValue::Bool;
        v.flag = w == "True";
      } else if (w == "None") {
        v.kind = PyValue::None;
      } else {
        integer(w, v);
      }
    } else {
      return fail("expected a value");
    }
    if (ok) v.text = s.substr(start, pos - start);
    return ok;
  }

  // An integer as Python 2 or 3 writes it (Python 2 added an L); anything else
  // that looks like a word is kept as Other, for the field check to name.
  static void integer(std::string_view w, PyValue &v) {
    size_t i = w[0] == '-' || w[0] == '+' ? 1 : 0;
    bool negative = w[0] == '-';
    if (w.size() > i + 1 && w.back() == 'L') w.remove_suffix(1);
    if (i == w.size()) return;
    uint64_t n = 0;
    bool big = false;
    for (size_t k = i; k < w.size(); k++) {
      if (w[k] < '0' || w[k] > '9') return;
      if (n > (uint64_t(INT64_MAX) - 9) / 10) big = true;
      else n = n * 10 + uint64_t(w[k] - '0');
    }
    v.kind = PyValue::Int;
    v.too_large = big;
    v.num = negative ? -int64_t(n) : int64_t(n);
  }
};

std::string field_error(std::string_view field, std::string_view what) {
  return fmt::format("header field '{}' {}", field, what);
}

// What a dtype Kiln does not read holds, so the message says more than a code.
const char *unsupported_kind(char kind) {
  switch (kind) {
  case 'c': return "complex numbers";
  case 'f': return "a float size Kiln does not read";
  case 'O': return "Python objects, stored pickled";
  case 'U': return "Unicode strings";
  case 'S':
  case 'a': return "byte strings";
  case 'V': return "raw or structured records";
  case 'M': return "dates";
  case 'm': return "time intervals";
  default: return "not a dtype Kiln reads";
  }
}

std::string parse_descr(const std::string &d, NpyHeader &out) {
  size_t i = 0;
  char order = '=';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) order = d[i++];
  char kind = i < d.size() ? d[i++] : '?';
  std::string digits = d.substr(i);
  int size = digits == "1" ? 1 : digits == "2" ? 2 : digits == "4" ? 4 : digits == "8" ? 8 : 0;
  bool ok = (kind == 'f' && (size == 4 || size == 8)) || ((kind == 'i' || kind == 'u') && size != 0) ||
            (kind == 'b' && size == 1);
  if (!ok)
    return field_error("descr", fmt::format("is an unsupported dtype '{}' ({}); Kiln reads float64, float32, "
                                            "int64, int32, int16, int8, uint64 to uint8 and bool",
                                            shown(d), unsupported_kind(kind)));
  out.kind = kind;
  out.itemsize = size;
  out.big_endian = order == '>' && size > 1;
  out.descr = d;
  return "";
}

std::string check_shape(const PyValue &v, NpyHeader &out) {
  std::string text = shown(v.text);
  if (v.kind != PyValue::Tuple) return field_error("shape", "must be a tuple of integers, got " + text);
  for (const PyValue &x : v.items)
    if (x.kind != PyValue::Int) return field_error("shape", "must be a tuple of integers, got " + text);
  if (v.items.size() > size_t(kMaxRank))
    return field_error("shape", fmt::format("{} has {} dimensions; Kiln tensors have at most {}", text,
                                            v.items.size(), kMaxRank));
  Shape s;
  s.rank = int(v.items.size());
  for (int k = 0; k < s.rank; k++) {
    const PyValue &x = v.items[size_t(k)];
    if (x.too_large) return field_error("shape", text + " has a dimension too large for any file");
    if (x.num < 0) return field_error("shape", text + " has a negative dimension");
    if (x.num == 0)
      return field_error("shape", text + " has a zero-length dimension; Kiln tensors have none");
    s.dim[k] = x.num;
  }
  out.shape = s;
  out.shape_text = text;
  return "";
}

}  // namespace

std::string parse_npy_header(std::string_view text, size_t offset, NpyHeader &out) {
  Parser p{text, offset, 0, ""};
  if (!p.at('{')) {
    p.fail("expected '{' (the header is a Python dict)");
    return p.error;
  }
  p.pos++;
  // The three fields, in the order of kFields.
  static constexpr const char *kFields[] = {"descr", "fortran_order", "shape"};
  PyValue fields[3];
  bool seen[3] = {false, false, false};
  while (!p.at('}')) {
    if (p.pos >= text.size()) {
      p.fail("expected '}'");
      return p.error;
    }
    if (!p.at('\'') && !p.at('"')) {
      p.fail("expected a quoted key or '}'");
      return p.error;
    }
    std::string key;
    if (!p.string(key)) return p.error;
    int k = 0;
    while (k < 3 && key != kFields[k]) k++;
    if (k == 3)
      return fmt::format(
          "header has an unknown field '{}' (a .npy header has 'descr', 'fortran_order' and "
          "'shape')",
          shown(key));
    if (seen[k]) return fmt::format("header field '{}' appears twice", key);
    seen[k] = true;
    if (!p.at(':')) {
      p.fail("expected ':'");
      return p.error;
    }
    p.pos++;
    if (!p.value(fields[k], 0)) return p.error;
    if (p.at(',')) {
      p.pos++;
    } else if (!p.at('}')) {
      p.fail("expected ',' or '}'");
      return p.error;
    }
  }
  p.pos++;
  p.skip_space();
  if (p.pos != text.size()) {
    p.fail("unexpected text after the dict");
    return p.error;
  }
  for (int k = 0; k < 3; k++)
    if (!seen[k]) return fmt::format("header has no '{}' field", kFields[k]);
  const PyValue *descr = &fields[0], *fortran = &fields[1], *shape = &fields[2];
  if (descr->kind == PyValue::List)
    return field_error("descr", "is a list of fields (a structured dtype); Kiln reads plain numbers only");
  if (descr->kind != PyValue::Str)
    return field_error("descr", "must be a dtype string such as '<f8', got " + shown(descr->text));
  std::string why = parse_descr(descr->str, out);
  if (!why.empty()) return why;
  if (fortran->kind != PyValue::Bool)
    return field_error("fortran_order", "must be True or False, got " + shown(fortran->text));
  out.fortran_order = fortran->flag;
  return check_shape(*shape, out);
}

std::string npy_header_f8(const Shape &s) {
  std::string shape = "(";
  for (int k = 0; k < s.rank; k++) shape += fmt::format("{}{}", k ? ", " : "", s.dim[k]);
  shape += s.rank == 1 ? ",)" : ")";
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
  if (s.rank > 0) dict.append(size_t(kGrowthDigits) - fmt::formatted_size("{}", s.dim[0]), ' ');
  // magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64;
  // already a multiple, NumPy still pads a whole 64 bytes.
  size_t used = 10 + dict.size() + 1;
  size_t pad = kNpyAlign - used % kNpyAlign;
  size_t len = dict.size() + pad + 1;
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(len & 0xff);
  out += char(len >> 8);
  out += dict;
  out.append(pad, ' ');
  out += '\n';
  return out;
}

}  // namespace kiln

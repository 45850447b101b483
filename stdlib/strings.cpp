// strings.cpp — string and symbol builtins: R7RS (scheme base/char) strings,
// symbols, str, string-split/join/contains/index, number<->string.
//
// Invariant: strings are mutable Unicode strings indexed by character
// (object.h String: narrow while ASCII, wide otherwise); every
// procedure that returns a string returns a fresh one (symbol->string copies
// the name, so mutating the result cannot rename a symbol). Optional
// START/END arguments are checked to satisfy 0 <= START <= END <= length.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/complex.h"
#include "runtime/continuation.h"
#include "runtime/eval.h"
#include "runtime/eval_internal.h"
#include "runtime/exact.h"
#include "runtime/number.h"
#include "runtime/port.h"
#include "runtime/printer.h"
#include "runtime/unicode.h"
#include "runtime/utf8.h"
#include "stdlib/builtins.h"

namespace kiln {
namespace {

Value str_of(std::string_view s) { return make_string(s); }
int64_t slen(String *s) { return s->len; }

// Reads optional START (argv[first]) and END (argv[first+1]) for a string of LEN.
void optional_range(const char *who, int argc, Value *argv, int first, int64_t len, int64_t *start,
                    int64_t *end) {
  *start = 0;
  *end = len;
  if (argc > first) {
    *start = arg_index(who, first + 1, argv[first]);
    if (*start > len) range_error(who, *start, "string", len);
  }
  if (argc > first + 1) {
    *end = arg_index(who, first + 2, argv[first + 1]);
    if (*end > len) range_error(who, *end, "string", len);
  }
  if (*start > *end) throw_errorf("{}: start {} is greater than end {}", who, *start, *end);
}

// ---- construction and access ------------------------------------------------

Value b_string(int argc, Value *argv) {
  std::vector<uint32_t> chars(static_cast<size_t>(argc));
  for (int i = 0; i < argc; i++) chars[size_t(i)] = arg_char("string", i + 1, argv[i]);
  return make_string_from_chars(chars.data(), argc);
}

Value b_make_string(int argc, Value *argv) {
  int64_t n = arg_index("make-string", 1, argv[0]);
  uint32_t fill = argc > 1 ? arg_char("make-string", 2, argv[1]) : ' ';
  return make_string_filled(n, fill);
}

Value b_string_length(int, Value *a) { return make_int(slen(arg_string("string-length", 1, a[0]))); }

Value b_string_ref(int, Value *a) {
  String *s = arg_string("string-ref", 1, a[0]);
  int64_t i = arg_index("string-ref", 2, a[1]);
  if (i >= s->len) range_error("string-ref", i, "string", s->len);
  return make_char(string_char(s, i));
}

Value b_string_set(int, Value *a) {
  String *s = arg_string("string-set!", 1, a[0]);
  int64_t i = arg_index("string-set!", 2, a[1]);
  uint32_t c = arg_char("string-set!", 3, a[2]);
  if (i >= s->len) range_error("string-set!", i, "string", s->len);
  string_set_char(s, i, c);
  return UNSPEC;
}

Value b_substring(int argc, Value *a) {
  String *s = arg_string("substring", 1, a[0]);
  int64_t start, end;
  optional_range("substring", argc, a, 1, s->len, &start, &end);
  return string_slice(s, start, end);
}

Value b_string_copy(int argc, Value *a) {
  String *s = arg_string("string-copy", 1, a[0]);
  int64_t start, end;
  optional_range("string-copy", argc, a, 1, s->len, &start, &end);
  return string_slice(s, start, end);
}

Value b_string_append(int argc, Value *argv) {
  int64_t total = 0;
  bool wide = false;
  for (int i = 0; i < argc; i++) {
    String *s = arg_string("string-append", i + 1, argv[i]);
    total += s->len;
    wide |= string_is_wide(s);
  }
  // A wide part may hold only ASCII; string_slice then narrows the result.
  String *out = alloc_string(total, wide);
  int64_t at = 0;
  for (int i = 0; i < argc; i++) {
    String *s = as<String>(argv[i]);
    string_copy_chars(out, at, s, 0, s->len);
    at += s->len;
  }
  return wide ? string_slice(out, 0, total) : from_ptr(out);
}

Value b_string_copy_bang(int argc, Value *a) {
  String *to = arg_string("string-copy!", 1, a[0]);
  int64_t at = arg_index("string-copy!", 2, a[1]);
  String *from = arg_string("string-copy!", 3, a[2]);
  if (at > to->len) range_error("string-copy!", at, "string", to->len);
  int64_t start, end;
  optional_range("string-copy!", argc, a, 3, from->len, &start, &end);
  if (at + (end - start) > to->len) range_error("string-copy!", at + (end - start), "string", to->len);
  string_copy_chars(to, at, from, start, end);  // may overlap
  return UNSPEC;
}

Value b_string_fill(int argc, Value *a) {
  String *s = arg_string("string-fill!", 1, a[0]);
  uint32_t c = arg_char("string-fill!", 2, a[1]);
  int64_t start, end;
  optional_range("string-fill!", argc, a, 2, s->len, &start, &end);
  if (!string_is_wide(s) && c < 0x80) std::memset(s->data + start, int(c), size_t(end - start));
  else
    for (int64_t i = start; i < end; i++) string_set_char(s, i, c);
  return UNSPEC;
}

Value b_string_null_p(int, Value *a) { return boolv(arg_string("string-null?", 1, a[0])->len == 0); }

// ---- comparison ---------------------------------------------------------------

// The characters of a string, as libunistring's case mappings take them.
std::vector<uint32_t> chars_of(const String *s) {
  std::vector<uint32_t> out(static_cast<size_t>(s->len));
  for (int64_t i = 0; i < s->len; i++) out[size_t(i)] = string_char(s, i);
  return out;
}

// The full case folding of a string (string-foldcase), as code points.
std::vector<uint32_t> folded(const String *s) {
  std::vector<uint32_t> c = chars_of(s);
  if (!string_is_wide(s)) {
    for (uint32_t &ch : c) ch = char_downcase(ch);
    return c;
  }
  return map_case(c.data(), c.size(), CaseMapping::Foldcase);
}

// Code point order: UTF-8 byte order is code point order, so the UTF-8 texts
// compare as the characters do. The -ci forms compare the full case foldings.
template <bool Fold> Value string_compare(const char *who, int argc, Value *argv, bool (*ok)(int)) {
  bool result = true;
  for (int i = 0; i < argc; i++) arg_string(who, i + 1, argv[i]);
  for (int i = 0; i + 1 < argc && result; i++) {
    int c;
    if (Fold) {
      std::vector<uint32_t> x = folded(as<String>(argv[i])), y = folded(as<String>(argv[i + 1]));
      c = x < y ? -1 : x == y ? 0 : 1;
    } else {
      c = string_view_of(argv[i]).compare(string_view_of(argv[i + 1]));
    }
    result = ok(c);
  }
  return boolv(result);
}
bool c_eq(int c) { return c == 0; }
bool c_lt(int c) { return c < 0; }
bool c_gt(int c) { return c > 0; }
bool c_le(int c) { return c <= 0; }
bool c_ge(int c) { return c >= 0; }
Value b_string_eq(int n, Value *a) { return string_compare<false>("string=?", n, a, c_eq); }
Value b_string_lt(int n, Value *a) { return string_compare<false>("string<?", n, a, c_lt); }
Value b_string_gt(int n, Value *a) { return string_compare<false>("string>?", n, a, c_gt); }
Value b_string_le(int n, Value *a) { return string_compare<false>("string<=?", n, a, c_le); }
Value b_string_ge(int n, Value *a) { return string_compare<false>("string>=?", n, a, c_ge); }
Value b_string_ci_eq(int n, Value *a) { return string_compare<true>("string-ci=?", n, a, c_eq); }
Value b_string_ci_lt(int n, Value *a) { return string_compare<true>("string-ci<?", n, a, c_lt); }
Value b_string_ci_gt(int n, Value *a) { return string_compare<true>("string-ci>?", n, a, c_gt); }
Value b_string_ci_le(int n, Value *a) { return string_compare<true>("string-ci<=?", n, a, c_le); }
Value b_string_ci_ge(int n, Value *a) { return string_compare<true>("string-ci>=?", n, a, c_ge); }

// ---- case ------------------------------------------------------------------------

// Full case mappings (ß upcases to SS, a final Σ downcases to ς); an ASCII
// string maps byte by byte.
Value map_case_of(const char *who, Value v, CaseMapping how) {
  String *s = arg_string(who, 1, v);
  if (!string_is_wide(s)) {
    String *out = alloc_string(s->len, false);
    for (int64_t i = 0; i < s->len; i++) {
      uint32_t c = (unsigned char)s->data[i];
      out->data[i] = char(how == CaseMapping::Upcase ? char_upcase(c) : char_downcase(c));
    }
    return from_ptr(out);
  }
  std::vector<uint32_t> c = chars_of(s);
  std::vector<uint32_t> mapped = map_case(c.data(), c.size(), how);
  return make_string_from_chars(mapped.data(), int64_t(mapped.size()));
}
Value b_string_upcase(int, Value *a) { return map_case_of("string-upcase", a[0], CaseMapping::Upcase); }
Value b_string_downcase(int, Value *a) { return map_case_of("string-downcase", a[0], CaseMapping::Downcase); }
Value b_string_foldcase(int, Value *a) { return map_case_of("string-foldcase", a[0], CaseMapping::Foldcase); }

// ---- conversion ----------------------------------------------------------------------

Value b_string_to_list(int argc, Value *a) {
  String *s = arg_string("string->list", 1, a[0]);
  int64_t start, end;
  optional_range("string->list", argc, a, 1, s->len, &start, &end);
  Value r = NIL;
  for (int64_t i = end - 1; i >= start; i--) r = cons(make_char(string_char(s, i)), r);
  return r;
}

Value b_list_to_string(int, Value *a) {
  Value lst = arg_list("list->string", 1, a[0]);
  std::vector<uint32_t> out;
  for (Value p = lst; is_pair(p); p = cdr(p)) {
    if (!is_char(car(p))) type_error("list->string", 1, "a list of chars", a[0]);
    out.push_back(char_of(car(p)));
  }
  return make_string_from_chars(out.data(), int64_t(out.size()));
}

Value b_string_to_vector(int argc, Value *a) {
  String *s = arg_string("string->vector", 1, a[0]);
  int64_t start, end;
  optional_range("string->vector", argc, a, 1, s->len, &start, &end);
  Value v = make_vector(end - start, UNSPEC);
  for (int64_t i = start; i < end; i++) as<Vector>(v)->items[i - start] = make_char(string_char(s, i));
  return v;
}

Value b_vector_to_string(int argc, Value *a) {
  Vector *v = arg_vector("vector->string", 1, a[0]);
  int64_t start = 0, end = v->len;
  if (argc > 1) {
    start = arg_index("vector->string", 2, a[1]);
    if (start > v->len) range_error("vector->string", start, "vector", v->len);
  }
  if (argc > 2) {
    end = arg_index("vector->string", 3, a[2]);
    if (end > v->len) range_error("vector->string", end, "vector", v->len);
  }
  if (start > end) throw_errorf("vector->string: start {} is greater than end {}", start, end);
  std::vector<uint32_t> out;
  for (int64_t i = start; i < end; i++) {
    if (!is_char(v->items[i])) type_error("vector->string", 1, "a vector of chars", a[0]);
    out.push_back(char_of(v->items[i]));
  }
  return make_string_from_chars(out.data(), int64_t(out.size()));
}

// Length of the shortest of the string arguments argv[first..argc).
int64_t shortest(const char *who, int argc, Value *argv, int first) {
  int64_t n = INT64_MAX;
  for (int i = first; i < argc; i++) n = std::min(n, arg_string(who, i + 1, argv[i])->len);
  return n;
}

Value b_string_for_each(int argc, Value *a) {
  Value proc = arg_proc("string-for-each", 1, a[0]);
  int64_t n = shortest("string-for-each", argc, a, 1);
  Value args[64];
  if (argc - 1 > 64) throw_error("string-for-each: too many strings");
  for (int64_t i = 0; i < n; i++) {
    // Through the String each time: the procedure may store into a string
    // and so widen it.
    for (int j = 1; j < argc; j++) args[j - 1] = make_char(string_char(as<String>(a[j]), i));
    // No reentry barrier (continuation.h), as for-each: this frame holds only
    // the index and args, refilled before each call, so a re-entry resumes it.
    call_procedure(proc, argc - 1, args);
  }
  return UNSPEC;
}

Value b_string_map(int argc, Value *a) {
  Value proc = arg_proc("string-map", 1, a[0]);
  int64_t n = shortest("string-map", argc, a, 1);
  Value args[64];
  if (argc - 1 > 64) throw_error("string-map: too many strings");
  // The code points in GC memory, not a std::vector: a continuation captured
  // in proc may resume this frame (no reentry barrier), and then copies `out`
  // first, as an earlier return may still be running on from the same point.
  auto *out = static_cast<uint32_t *>(gc_alloc_atomic(sizeof(uint32_t) * size_t(n + 1)));
  uint64_t epoch = g_reentry_epoch;
  for (int64_t i = 0; i < n; i++) {
    for (int j = 1; j < argc; j++) args[j - 1] = make_char(string_char(as<String>(a[j]), i));
    Value c = call_procedure(proc, argc - 1, args);
    if (!is_char(c))
      throw_errorf("string-map: the procedure must return a char, got {}", error_value_string(c));
    if (epoch != g_reentry_epoch) {
      epoch = g_reentry_epoch;
      auto *fresh = static_cast<uint32_t *>(gc_alloc_atomic(sizeof(uint32_t) * size_t(n + 1)));
      std::memcpy(fresh, out, sizeof(uint32_t) * size_t(i));
      out = fresh;
    }
    out[size_t(i)] = char_of(c);
  }
  return make_string_from_chars(out, n);
}

// ---- symbols ---------------------------------------------------------------------

Value b_symbol_to_string(int, Value *a) { return str_of(symbol_name(arg_symbol("symbol->string", 1, a[0]))); }
Value b_string_to_symbol(int, Value *a) {
  return intern(string_view_of(from_ptr(arg_string("string->symbol", 1, a[0]))));
}
Value b_gensym(int argc, Value *a) {
  if (argc == 0) return gensym("g");
  if (is_string(a[0])) return gensym(string_view_of(a[0]));
  if (is_symbol(a[0])) return gensym(symbol_name(a[0]));
  type_error("gensym", 1, "a string or a symbol", a[0]);
}

// ---- str ---------------------------------------------------------------

Value b_str(int argc, Value *argv) {
  std::string out;
  for (int i = 0; i < argc; i++) print_value_interruptible(out, argv[i], false);
  return str_of(out);
}

// ---- split, join, search ----------------------------------------------------------

// Splitting and searching work on the UTF-8 texts: UTF-8 is self-synchronising,
// so a match of valid UTF-8 inside valid UTF-8 starts and ends on characters.

// The character index of byte offset k of a string's UTF-8 text: the bytes
// before k that start a character.
int64_t char_index_of(std::string_view text, size_t k) {
  int64_t n = 0;
  for (size_t i = 0; i < k; i++) n += ((unsigned char)text[i] & 0xC0) != 0x80;
  return n;
}

// (string-split STR CHAR-OR-STRING) keeps empty fields; (string-split STR)
// splits on runs of whitespace and drops empty fields.
Value b_string_split(int argc, Value *a) {
  String *str = arg_string("string-split", 1, a[0]);
  std::vector<std::pair<int64_t, int64_t>> parts;  // character ranges
  if (argc == 1) {
    int64_t i = 0, n = str->len;
    while (i < n) {
      while (i < n && char_is_whitespace(string_char(str, i))) i++;
      int64_t j = i;
      while (j < n && !char_is_whitespace(string_char(str, j))) j++;
      if (j > i) parts.emplace_back(i, j);
      i = j;
    }
  } else {
    std::string sep;
    if (is_char(a[1])) utf8_append(sep, char_of(a[1]));
    else if (is_string(a[1]) && as<String>(a[1])->len > 0) sep = string_view_of(a[1]);
    else type_error("string-split", 2, "a char or a non-empty string", a[1]);
    std::string_view s = string_view_of(a[0]);
    int64_t sep_chars = char_index_of(sep, sep.size());
    size_t start = 0;
    int64_t start_char = 0;
    for (;;) {
      size_t k = s.find(sep, start);
      if (k == std::string_view::npos) break;
      int64_t k_char = start_char + char_index_of(s.substr(start), k - start);
      parts.emplace_back(start_char, k_char);
      start = k + sep.size();
      start_char = k_char + sep_chars;
    }
    parts.emplace_back(start_char, str->len);
  }
  Value r = NIL;
  for (size_t i = parts.size(); i-- > 0;)
    r = cons(string_slice(as<String>(a[0]), parts[i].first, parts[i].second), r);
  return r;
}

// (string-join LIST [SEP]) with SEP defaulting to one space.
Value b_string_join(int argc, Value *a) {
  Value lst = arg_list("string-join", 1, a[0]);
  std::string_view sep = argc > 1 ? string_view_of(from_ptr(arg_string("string-join", 2, a[1]))) : " ";
  std::string out;
  bool first = true;
  for (Value p = lst; is_pair(p); p = cdr(p)) {
    if (!is_string(car(p))) type_error("string-join", 1, "a list of strings", a[0]);
    if (!first) out += sep;
    out += string_view_of(car(p));
    first = false;
  }
  return str_of(out);
}

// (string-contains STR PATTERN) index of the first occurrence, or #f.
Value b_string_contains(int, Value *a) {
  std::string_view s = string_view_of(from_ptr(arg_string("string-contains", 1, a[0])));
  std::string_view pat = string_view_of(from_ptr(arg_string("string-contains", 2, a[1])));
  size_t k = s.find(pat);
  if (k == std::string_view::npos) return FALSE_V;
  return make_int(string_is_wide(as<String>(a[0])) ? char_index_of(s, k) : int64_t(k));
}

// (string-index STR CHAR-OR-PREDICATE) index of the first match, or #f.
Value b_string_index(int, Value *a) {
  String *s = arg_string("string-index", 1, a[0]);
  Value want = a[1];
  if (!is_char(want) && !is_procedure(want)) type_error("string-index", 2, "a char or a procedure", want);
  for (int64_t i = 0; i < s->len; i++) {
    Value c = make_char(string_char(s, i));
    bool hit = is_char(want) ? c == want : truthy(apply_proc(want, 1, &c));
    if (hit) return make_int(i);
  }
  return FALSE_V;
}

Value b_string_prefix_p(int, Value *a) {
  std::string_view p = string_view_of(from_ptr(arg_string("string-prefix?", 1, a[0])));
  std::string_view s = string_view_of(from_ptr(arg_string("string-prefix?", 2, a[1])));
  return boolv(s.substr(0, p.size()) == p);
}
Value b_string_suffix_p(int, Value *a) {
  std::string_view p = string_view_of(from_ptr(arg_string("string-suffix?", 1, a[0])));
  std::string_view s = string_view_of(from_ptr(arg_string("string-suffix?", 2, a[1])));
  return boolv(s.size() >= p.size() && s.substr(s.size() - p.size()) == p);
}

Value trim(const char *who, Value v, bool left, bool right) {
  String *s = arg_string(who, 1, v);
  int64_t b = 0, e = s->len;
  if (left)
    while (b < e && char_is_whitespace(string_char(s, b))) b++;
  if (right)
    while (e > b && char_is_whitespace(string_char(s, e - 1))) e--;
  return string_slice(s, b, e);
}
Value b_string_trim(int, Value *a) { return trim("string-trim", a[0], true, true); }
Value b_string_trim_left(int, Value *a) { return trim("string-trim-left", a[0], true, false); }
Value b_string_trim_right(int, Value *a) { return trim("string-trim-right", a[0], false, true); }

Value b_string_reverse(int, Value *a) {
  String *s = arg_string("string-reverse", 1, a[0]);
  Value r = string_slice(s, 0, s->len);
  String *out = as<String>(r);
  for (int64_t i = 0, j = s->len - 1; i < s->len; i++, j--) {
    if (string_is_wide(out)) wide_chars(out)[i] = string_char(s, j);
    else out->data[i] = char(string_char(s, j));
  }
  return r;
}

// ---- numbers <-> strings ----------------------------------------------------------

int arg_radix(const char *who, int argc, Value *a) {
  if (argc < 2) return 10;
  Value r = a[1];
  if (!is_int(r) || int_of(r) < 2 || int_of(r) > 36) type_error(who, 2, "a radix from 2 to 36", r);
  return int(int_of(r));
}

Value b_number_to_string(int argc, Value *a) {
  int radix = arg_radix("number->string", argc, a);
  if (is_exact(a[0])) return str_of(exact_to_string(a[0], radix));
  if (is_double(a[0])) {
    if (radix != 10)
      throw_errorf("number->string: a float can only be written in radix 10, got radix {}", radix);
    return str_of(format_double(double_of(a[0])));
  }
  if (is_compnum(a[0])) {
    if (radix != 10 && !compnum_is_exact(a[0]))
      throw_errorf("number->string: a float can only be written in radix 10, got radix {}", radix);
    return str_of(complex_to_string(a[0], radix));
  }
  type_error("number->string", 1, "a number", a[0]);
}

Value b_string_to_number(int argc, Value *a) {
  String *s = arg_string("string->number", 1, a[0]);
  int radix = arg_radix("string->number", argc, a);
  Value v = parse_number(string_view_of(from_ptr(s)), radix);
  return v == NOVALUE ? FALSE_V : v;
}

BuiltinRegistrar strings_registrar([] {
  defbuiltin("string", 0, -1, b_string, "(string C ...) a new string of the chars");
  defbuiltin("make-string", 1, 2, b_make_string, "(make-string N [CHAR]) N copies of CHAR (default space)");
  defbuiltin("string-length", 1, 1, b_string_length, "(string-length S)");
  defbuiltin("string-ref", 2, 2, b_string_ref, "(string-ref S I) the char at index I");
  defbuiltin("string-set!", 3, 3, b_string_set, "(string-set! S I C)");
  defbuiltin("substring", 2, 3, b_substring, "(substring S START [END])");
  defbuiltin("string-copy", 1, 3, b_string_copy, "(string-copy S [START [END]])");
  defbuiltin("string-copy!", 3, 5, b_string_copy_bang, "(string-copy! TO AT FROM [START [END]])");
  defbuiltin("string-fill!", 2, 4, b_string_fill, "(string-fill! S C [START [END]])");
  defbuiltin("string-append", 0, -1, b_string_append, "(string-append S ...)");
  defbuiltin("string-null?", 1, 1, b_string_null_p, "(string-null? S) S is empty");
  defbuiltin("string=?", 1, -1, b_string_eq, "(string=? S ...)");
  defbuiltin("string<?", 1, -1, b_string_lt, "(string<? S ...)");
  defbuiltin("string>?", 1, -1, b_string_gt, "(string>? S ...)");
  defbuiltin("string<=?", 1, -1, b_string_le, "(string<=? S ...)");
  defbuiltin("string>=?", 1, -1, b_string_ge, "(string>=? S ...)");
  defbuiltin("string-ci=?", 1, -1, b_string_ci_eq, "(string-ci=? S ...) ignoring case");
  defbuiltin("string-ci<?", 1, -1, b_string_ci_lt, "(string-ci<? S ...) ignoring case");
  defbuiltin("string-ci>?", 1, -1, b_string_ci_gt, "(string-ci>? S ...) ignoring case");
  defbuiltin("string-ci<=?", 1, -1, b_string_ci_le, "(string-ci<=? S ...) ignoring case");
  defbuiltin("string-ci>=?", 1, -1, b_string_ci_ge, "(string-ci>=? S ...) ignoring case");
  defbuiltin("string-upcase", 1, 1, b_string_upcase, "(string-upcase S)");
  defbuiltin("string-downcase", 1, 1, b_string_downcase, "(string-downcase S)");
  defbuiltin("string-foldcase", 1, 1, b_string_foldcase, "(string-foldcase S)");
  defbuiltin("string->list", 1, 3, b_string_to_list, "(string->list S [START [END]])");
  defbuiltin("list->string", 1, 1, b_list_to_string, "(list->string CHARS)");
  defbuiltin("string->vector", 1, 3, b_string_to_vector, "(string->vector S [START [END]])");
  defbuiltin("vector->string", 1, 3, b_vector_to_string, "(vector->string V [START [END]])");
  defbuiltin("string-for-each", 2, -1, b_string_for_each, "(string-for-each PROC S ...)");
  defbuiltin("string-map", 2, -1, b_string_map, "(string-map PROC S ...) a new string of PROC's chars");
  defbuiltin("symbol->string", 1, 1, b_symbol_to_string, "(symbol->string SYM) a fresh string");
  defbuiltin("string->symbol", 1, 1, b_string_to_symbol, "(string->symbol S) the interned symbol");
  defbuiltin("gensym", 0, 1, b_gensym, "(gensym [PREFIX]) a fresh uninterned symbol");
  defbuiltin("str", 0, -1, b_str, "(str X ...) the display forms of the arguments, concatenated");
  defbuiltin("string-split", 1, 2, b_string_split,
             "(string-split S SEP) fields between SEP (a char or string); (string-split S) words");
  defbuiltin("string-join", 1, 2, b_string_join, "(string-join STRINGS [SEP]) SEP defaults to a space");
  defbuiltin("string-contains", 2, 2, b_string_contains, "(string-contains S PATTERN) index or #f");
  defbuiltin("string-index", 2, 2, b_string_index, "(string-index S CHAR-OR-PRED) index or #f");
  defbuiltin("string-prefix?", 2, 2, b_string_prefix_p, "(string-prefix? PREFIX S)");
  defbuiltin("string-suffix?", 2, 2, b_string_suffix_p, "(string-suffix? SUFFIX S)");
  defbuiltin("string-trim", 1, 1, b_string_trim, "(string-trim S) without surrounding whitespace");
  defbuiltin("string-trim-left", 1, 1, b_string_trim_left, "(string-trim-left S)");
  defbuiltin("string-trim-right", 1, 1, b_string_trim_right, "(string-trim-right S)");
  defbuiltin("string-reverse", 1, 1, b_string_reverse, "(string-reverse S)");
  defbuiltin("number->string", 1, 2, b_number_to_string, "(number->string N [RADIX])");
  defbuiltin("string->number", 1, 2, b_string_to_number, "(string->number S [RADIX]) a number or #f");
});

}  // namespace
}  // namespace kiln

// chars.cpp — character builtins (R7RS scheme base / scheme char).
//
// Invariant: characters are Unicode scalar values; classification and case
// mapping come from runtime/unicode.h (libunistring's tables), so they agree
// with the string builtins and the reader's #!fold-case.
#include "runtime/unicode.h"
#include "runtime/utf8.h"
#include "stdlib/builtins.h"

namespace kiln {

namespace {

uint32_t arg_c(const char *who, int pos, Value v) { return arg_char(who, pos, v); }

// Variadic comparison (at least one argument, all chars), optionally on folded case.
template <bool (*Ok)(uint32_t, uint32_t), bool Fold>
Value char_compare(const char *who, int argc, Value *argv) {
  uint32_t prev = 0;
  bool result = true;
  for (int i = 0; i < argc; i++) {
    uint32_t c = arg_c(who, i + 1, argv[i]);  // every argument is checked
    if (Fold) c = char_foldcase(c);
    if (i > 0 && !Ok(prev, c)) result = false;
    prev = c;
  }
  return boolv(result);
}
bool eq_(uint32_t a, uint32_t b) { return a == b; }
bool lt_(uint32_t a, uint32_t b) { return a < b; }
bool gt_(uint32_t a, uint32_t b) { return a > b; }
bool le_(uint32_t a, uint32_t b) { return a <= b; }
bool ge_(uint32_t a, uint32_t b) { return a >= b; }

Value b_char_eq(int n, Value *a) { return char_compare<eq_, false>("char=?", n, a); }
Value b_char_lt(int n, Value *a) { return char_compare<lt_, false>("char<?", n, a); }
Value b_char_gt(int n, Value *a) { return char_compare<gt_, false>("char>?", n, a); }
Value b_char_le(int n, Value *a) { return char_compare<le_, false>("char<=?", n, a); }
Value b_char_ge(int n, Value *a) { return char_compare<ge_, false>("char>=?", n, a); }
Value b_char_ci_eq(int n, Value *a) { return char_compare<eq_, true>("char-ci=?", n, a); }
Value b_char_ci_lt(int n, Value *a) { return char_compare<lt_, true>("char-ci<?", n, a); }
Value b_char_ci_gt(int n, Value *a) { return char_compare<gt_, true>("char-ci>?", n, a); }
Value b_char_ci_le(int n, Value *a) { return char_compare<le_, true>("char-ci<=?", n, a); }
Value b_char_ci_ge(int n, Value *a) { return char_compare<ge_, true>("char-ci>=?", n, a); }

Value b_char_alphabetic(int, Value *a) {
  return boolv(char_is_alphabetic(arg_c("char-alphabetic?", 1, a[0])));
}
Value b_char_numeric(int, Value *a) { return boolv(char_is_numeric(arg_c("char-numeric?", 1, a[0]))); }
Value b_char_whitespace(int, Value *a) {
  return boolv(char_is_whitespace(arg_c("char-whitespace?", 1, a[0])));
}
Value b_char_upper(int, Value *a) { return boolv(char_is_upper_case(arg_c("char-upper-case?", 1, a[0]))); }
Value b_char_lower(int, Value *a) { return boolv(char_is_lower_case(arg_c("char-lower-case?", 1, a[0]))); }
Value b_char_upcase(int, Value *a) { return make_char(char_upcase(arg_c("char-upcase", 1, a[0]))); }
Value b_char_downcase(int, Value *a) { return make_char(char_downcase(arg_c("char-downcase", 1, a[0]))); }
Value b_char_foldcase(int, Value *a) { return make_char(char_foldcase(arg_c("char-foldcase", 1, a[0]))); }
Value b_digit_value(int, Value *a) {
  int d = char_digit_value(arg_c("digit-value", 1, a[0]));
  return d >= 0 ? make_fixnum(d) : FALSE_V;
}
Value b_char_to_integer(int, Value *a) { return make_fixnum(arg_c("char->integer", 1, a[0])); }
Value b_integer_to_char(int, Value *a) {
  Value v = a[0];
  if (!is_int(v)) type_error("integer->char", 1, "an exact integer", v);
  int64_t n = int_of(v);
  if (is_surrogate(n))
    throw_errorf("integer->char: #x{:X} is a surrogate code point (#xD800 to #xDFFF), not a character", n);
  if (!is_scalar_value(n))
    throw_errorf("integer->char: {} is out of range for a character (0 to #x10FFFF)", error_value_string(v));
  return make_char(uint32_t(n));
}

BuiltinRegistrar chars_registrar([] {
  defbuiltin("char=?", 1, -1, b_char_eq, "(char=? C ...)");
  defbuiltin("char<?", 1, -1, b_char_lt, "(char<? C ...)");
  defbuiltin("char>?", 1, -1, b_char_gt, "(char>? C ...)");
  defbuiltin("char<=?", 1, -1, b_char_le, "(char<=? C ...)");
  defbuiltin("char>=?", 1, -1, b_char_ge, "(char>=? C ...)");
  defbuiltin("char-ci=?", 1, -1, b_char_ci_eq, "(char-ci=? C ...) ignoring case");
  defbuiltin("char-ci<?", 1, -1, b_char_ci_lt, "(char-ci<? C ...) ignoring case");
  defbuiltin("char-ci>?", 1, -1, b_char_ci_gt, "(char-ci>? C ...) ignoring case");
  defbuiltin("char-ci<=?", 1, -1, b_char_ci_le, "(char-ci<=? C ...) ignoring case");
  defbuiltin("char-ci>=?", 1, -1, b_char_ci_ge, "(char-ci>=? C ...) ignoring case");
  defbuiltin("char-alphabetic?", 1, 1, b_char_alphabetic,
             "(char-alphabetic? C) a letter (Unicode Alphabetic)");
  defbuiltin("char-numeric?", 1, 1, b_char_numeric,
             "(char-numeric? C) a decimal digit of any script (Unicode Nd)");
  defbuiltin("char-whitespace?", 1, 1, b_char_whitespace, "(char-whitespace? C)");
  defbuiltin("char-upper-case?", 1, 1, b_char_upper, "(char-upper-case? C)");
  defbuiltin("char-lower-case?", 1, 1, b_char_lower, "(char-lower-case? C)");
  defbuiltin("char-upcase", 1, 1, b_char_upcase, "(char-upcase C)");
  defbuiltin("char-downcase", 1, 1, b_char_downcase, "(char-downcase C)");
  defbuiltin("char-foldcase", 1, 1, b_char_foldcase, "(char-foldcase C)");
  defbuiltin("digit-value", 1, 1, b_digit_value,
             "(digit-value C) 0-9 for a decimal digit of any script, else #f");
  defbuiltin("char->integer", 1, 1, b_char_to_integer, "(char->integer C) the Unicode code point");
  defbuiltin("integer->char", 1, 1, b_integer_to_char,
             "(integer->char N) N from 0 to #x10FFFF, not a surrogate");
});

}  // namespace
}  // namespace kiln

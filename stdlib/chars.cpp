// chars.cpp — character builtins (R7RS scheme base / scheme char) over Latin-1.
//
// Invariant: characters are code points 0..255 (Latin-1). Classification and
// case mapping follow Unicode restricted to that range, computed here rather
// than through <cctype>, whose answers depend on the C locale: letters are
// A-Z a-z ª µ º À-Ö Ø-ö ø-ÿ; ß ÿ µ ª º have no upper-case form inside Latin-1
// and map to themselves.
#include "chars.h"

#include "builtins.h"

namespace kiln {

bool latin1_upper(uint32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7); }
bool latin1_lower(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) || c == 0xAA || c == 0xB5 ||
         c == 0xBA;
}
bool latin1_alpha(uint32_t c) { return latin1_upper(c) || latin1_lower(c); }
bool latin1_digit(uint32_t c) { return c >= '0' && c <= '9'; }
bool latin1_space(uint32_t c) { return c == ' ' || (c >= 9 && c <= 13) || c == 0x85 || c == 0xA0; }
uint32_t latin1_upcase(uint32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  return c;
}
uint32_t latin1_downcase(uint32_t c) { return latin1_upper(c) ? c + 32 : c; }

namespace {

uint32_t arg_c(const char *who, int pos, Value v) { return arg_char(who, pos, v); }

// Variadic comparison (at least one argument, all chars), optionally on folded case.
template <bool (*Ok)(uint32_t, uint32_t), bool Fold>
Value char_compare(const char *who, int argc, Value *argv) {
  uint32_t prev = 0;
  bool result = true;
  for (int i = 0; i < argc; i++) {
    uint32_t c = arg_c(who, i + 1, argv[i]);  // every argument is checked
    if (Fold) c = latin1_downcase(c);
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

Value b_char_alphabetic(int, Value *a) { return boolv(latin1_alpha(arg_c("char-alphabetic?", 1, a[0]))); }
Value b_char_numeric(int, Value *a) { return boolv(latin1_digit(arg_c("char-numeric?", 1, a[0]))); }
Value b_char_whitespace(int, Value *a) { return boolv(latin1_space(arg_c("char-whitespace?", 1, a[0]))); }
Value b_char_upper(int, Value *a) { return boolv(latin1_upper(arg_c("char-upper-case?", 1, a[0]))); }
Value b_char_lower(int, Value *a) { return boolv(latin1_lower(arg_c("char-lower-case?", 1, a[0]))); }
Value b_char_upcase(int, Value *a) { return make_char(latin1_upcase(arg_c("char-upcase", 1, a[0]))); }
Value b_char_downcase(int, Value *a) { return make_char(latin1_downcase(arg_c("char-downcase", 1, a[0]))); }
Value b_char_foldcase(int, Value *a) { return make_char(latin1_downcase(arg_c("char-foldcase", 1, a[0]))); }
Value b_digit_value(int, Value *a) {
  uint32_t c = arg_c("digit-value", 1, a[0]);
  return latin1_digit(c) ? make_fixnum(c - '0') : FALSE_V;
}
Value b_char_to_integer(int, Value *a) { return make_fixnum(arg_c("char->integer", 1, a[0])); }
Value b_integer_to_char(int, Value *a) {
  Value v = a[0];
  if (!is_int(v) || int_of(v) < 0 || int_of(v) > 255)
    type_error("integer->char", 1, "a character code from 0 to 255", v);
  return make_char(uint32_t(int_of(v)));
}

BuiltinRegistrar reg([] {
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
  defbuiltin("char-alphabetic?", 1, 1, b_char_alphabetic, "(char-alphabetic? C) a Latin-1 letter");
  defbuiltin("char-numeric?", 1, 1, b_char_numeric, "(char-numeric? C) 0-9");
  defbuiltin("char-whitespace?", 1, 1, b_char_whitespace, "(char-whitespace? C)");
  defbuiltin("char-upper-case?", 1, 1, b_char_upper, "(char-upper-case? C)");
  defbuiltin("char-lower-case?", 1, 1, b_char_lower, "(char-lower-case? C)");
  defbuiltin("char-upcase", 1, 1, b_char_upcase, "(char-upcase C)");
  defbuiltin("char-downcase", 1, 1, b_char_downcase, "(char-downcase C)");
  defbuiltin("char-foldcase", 1, 1, b_char_foldcase, "(char-foldcase C)");
  defbuiltin("digit-value", 1, 1, b_digit_value, "(digit-value C) 0-9 for a digit, else #f");
  defbuiltin("char->integer", 1, 1, b_char_to_integer, "(char->integer C) the Latin-1 code");
  defbuiltin("integer->char", 1, 1, b_integer_to_char, "(integer->char N) N from 0 to 255");
});

}  // namespace
}  // namespace kiln

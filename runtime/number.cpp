// number.cpp — the slow paths of number.h: boxed integers, mixed operands,
// overflow checks, non-number operands, and number <-> text conversion.
#include "number.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "args.h"
#include "error.h"

namespace kiln {

SplitMix64 g_lisp_random;

void integer_overflow(const char *op) { throw_errorf("integer overflow in {}", op); }
void division_by_zero() { throw_error("division by zero"); }

int64_t checked_add(const char *op, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) integer_overflow(op);
  return r;
}
int64_t checked_sub(const char *op, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) integer_overflow(op);
  return r;
}
int64_t checked_mul(const char *op, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) integer_overflow(op);
  return r;
}

Value not_a_number(const char *who, int argc, Value *argv, int pos0) {
  const TypeHooks *best = nullptr;
  for (int i = 0; i < argc; i++) {
    if (!is_ptr(argv[i])) continue;
    const TypeHooks &h = g_type_hooks[hdr(argv[i])->type];
    if (h.arith && (!best || h.arith_rank > best->arith_rank)) best = &h;
  }
  if (best) {
    Value r = best->arith(who, argc, argv);
    if (r != NOVALUE) return r;
  }
  type_error(who, pos0 + 1, "a number", argv[pos0]);
}

// Position (0-based) of the first non-number among two operands.
static int first_non_number(Value a) { return is_number(a) ? 1 : 0; }

Value num_add_slow(Value a, Value b) {
  if (is_int(a) && is_int(b)) return make_int(checked_add("+", int_of(a), int_of(b)));
  if (is_number(a) && is_number(b)) return make_double(number_as_double(a) + number_as_double(b));
  Value argv[2] = {a, b};
  return not_a_number("+", 2, argv, first_non_number(a));
}

Value num_sub_slow(Value a, Value b) {
  if (is_int(a) && is_int(b)) return make_int(checked_sub("-", int_of(a), int_of(b)));
  if (is_number(a) && is_number(b)) return make_double(number_as_double(a) - number_as_double(b));
  Value argv[2] = {a, b};
  return not_a_number("-", 2, argv, first_non_number(a));
}

Value num_mul_slow(Value a, Value b) {
  if (is_int(a) && is_int(b)) return make_int(checked_mul("*", int_of(a), int_of(b)));
  if (is_number(a) && is_number(b)) return make_double(number_as_double(a) * number_as_double(b));
  Value argv[2] = {a, b};
  return not_a_number("*", 2, argv, first_non_number(a));
}

Value num_div(Value a, Value b) {
  if (is_int(a) && is_int(b)) {
    int64_t x = int_of(a), y = int_of(b);
    if (y == 0) division_by_zero();
    if (y == -1) return make_int(checked_sub("/", 0, x));  // INT64_MIN / -1 overflows
    if (x % y == 0) return make_int(x / y);
    return make_double(double(x) / double(y));
  }
  if (is_number(a) && is_number(b)) return make_double(number_as_double(a) / number_as_double(b));
  Value argv[2] = {a, b};
  return not_a_number("/", 2, argv, first_non_number(a));
}

Value num_negate(Value a) {
  if (is_fixnum(a)) return make_int(-fixnum_of(a));
  if (is_int(a)) return make_int(checked_sub("-", 0, int_of(a)));
  if (is_double(a)) return make_double(-double_of(a));
  return not_a_number("-", 1, &a, 0);
}

int compare_int_double(int64_t i, double d) {
  if (d >= 0x1p63) return -1;
  if (d < -0x1p63) return 1;
  // Rounding int64 -> double is monotonic, so a strict difference after
  // conversion is the true order; on a tie d is integral and in range.
  double di = double(i);
  if (di < d) return -1;
  if (di > d) return 1;
  int64_t j = int64_t(d);
  return i < j ? -1 : (i > j ? 1 : 0);
}

bool num_compare_slow(Cmp op, const char *who, Value a, Value b) {
  if (!is_number(a)) type_error(who, 1, "a number", a);
  if (!is_number(b)) type_error(who, 2, "a number", b);
  int c;
  if (is_int(a) && is_int(b)) {
    int64_t x = int_of(a), y = int_of(b);
    c = x < y ? -1 : (x > y ? 1 : 0);
  } else if (is_double(a) && is_double(b)) {
    double x = double_of(a), y = double_of(b);
    if (x != x || y != y) return false;
    c = x < y ? -1 : (x > y ? 1 : 0);
  } else if (is_double(a)) {
    double x = double_of(a);
    if (x != x) return false;
    c = -compare_int_double(int_of(b), x);
  } else {
    double y = double_of(b);
    if (y != y) return false;
    c = compare_int_double(int_of(a), y);
  }
  switch (op) {
  case Cmp::LT: return c < 0;
  case Cmp::LE: return c <= 0;
  case Cmp::GT: return c > 0;
  case Cmp::GE: return c >= 0;
  case Cmp::EQ: return c == 0;
  }
  return false;
}

int64_t floor_quotient(int64_t a, int64_t b) {
  if (b == -1) return checked_sub("floor-quotient", 0, a);
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q--;
  return q;
}

int64_t floor_remainder(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int64_t exact_of_double(const char *who, int pos, double d) {
  if (!std::isfinite(d) || d != std::trunc(d)) type_error(who, pos, "an integral float", make_double(d));
  if (d >= 0x1p63 || d < -0x1p63) integer_overflow(who);
  return int64_t(d);
}

std::string int_to_string(int64_t n, int radix) {
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  uint64_t u = n < 0 ? 0 - uint64_t(n) : uint64_t(n);
  char buf[72];
  int i = sizeof buf;
  do {
    buf[--i] = digits[u % uint64_t(radix)];
    u /= uint64_t(radix);
  } while (u);
  if (n < 0) buf[--i] = '-';
  return std::string(buf + i, sizeof buf - size_t(i));
}

static int digit_in_radix(char c, int radix) {
  int d;
  if (c >= '0' && c <= '9') d = c - '0';
  else if (c >= 'a' && c <= 'z') d = c - 'a' + 10;
  else if (c >= 'A' && c <= 'Z') d = c - 'A' + 10;
  else return -1;
  return d < radix ? d : -1;
}

// R5RS's exponent markers s f d l, which Schemes still accept; R7RS has only e.
static bool is_exponent_marker(char c) {
  c = char(c | 0x20);
  return c == 'e' || c == 's' || c == 'f' || c == 'd' || c == 'l';
}

// [sign] digits [. digits] | [sign] . digits, then optional e[sign]digits.
static bool is_decimal_float_syntax(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) i++;
  size_t mantissa_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') i++, mantissa_digits++;
  if (i < s.size() && s[i] == '.') {
    i++;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') i++, mantissa_digits++;
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && is_exponent_marker(s[i])) {
    i++;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) i++;
    size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') i++, exp_digits++;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// Case-insensitive, as R7RS's number syntax is.
static bool ascii_iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (std::tolower((unsigned char)a[i]) != b[i]) return false;
  return true;
}

static Value parse_real(std::string_view s, int radix) {
  if (ascii_iequal(s, "+inf.0")) return make_double(HUGE_VAL);
  if (ascii_iequal(s, "-inf.0")) return make_double(-HUGE_VAL);
  if (ascii_iequal(s, "+nan.0") || ascii_iequal(s, "-nan.0")) return make_double(NAN);
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return NOVALUE;
  // Integer: accumulate the magnitude as unsigned so INT64_MIN is reachable.
  uint64_t magnitude = 0;
  bool all_digits = true, overflow = false;
  for (size_t j = i; j < s.size(); j++) {
    int d = digit_in_radix(s[j], radix);
    if (d < 0) {
      all_digits = false;
      break;
    }
    if (__builtin_mul_overflow(magnitude, uint64_t(radix), &magnitude) ||
        __builtin_add_overflow(magnitude, uint64_t(d), &magnitude))
      overflow = true;
  }
  if (all_digits) {
    uint64_t limit = negative ? (1ull << 63) : (1ull << 63) - 1;
    if (overflow || magnitude > limit) return NOVALUE;
    return make_int(negative ? int64_t(0 - magnitude) : int64_t(magnitude));
  }
  if (radix != 10 || !is_decimal_float_syntax(s)) return NOVALUE;
  std::string text(s);
  for (char &c : text)
    if (is_exponent_marker(c)) c = 'e';  // strtod knows only e
  return make_double(std::strtod(text.c_str(), nullptr));
}

bool is_integer_syntax(std::string_view text, int radix) {
  while (text.size() >= 2 && text[0] == '#') {
    switch (std::tolower((unsigned char)text[1])) {
    case 'x': radix = 16; break;
    case 'o': radix = 8; break;
    case 'b': radix = 2; break;
    case 'd': radix = 10; break;
    case 'e':
    case 'i': break;
    default: return false;
    }
    text.remove_prefix(2);
  }
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  if (text.empty()) return false;
  for (char c : text)
    if (digit_in_radix(c, radix) < 0) return false;
  return true;
}

Value parse_number(std::string_view text, int radix) {
  bool want_exact = false, want_inexact = false;
  while (text.size() >= 2 && text[0] == '#') {
    switch (text[1]) {
    case 'x':
    case 'X': radix = 16; break;
    case 'o':
    case 'O': radix = 8; break;
    case 'b':
    case 'B': radix = 2; break;
    case 'd':
    case 'D': radix = 10; break;
    case 'e':
    case 'E': want_exact = true; break;
    case 'i':
    case 'I': want_inexact = true; break;
    default: return NOVALUE;
    }
    text.remove_prefix(2);
  }
  if (text.empty()) return NOVALUE;
  Value v = parse_real(text, radix);
  if (v == NOVALUE) return v;
  if (want_exact && is_double(v)) {
    double d = double_of(v);
    if (!std::isfinite(d) || d != std::trunc(d) || d >= 0x1p63 || d < -0x1p63) return NOVALUE;
    return make_int(int64_t(d));
  }
  if (want_inexact && is_int(v)) return make_double(double(int_of(v)));
  return v;
}

}  // namespace kiln

// number.cpp — the slow paths of number.h: exact numbers beyond fixnums, mixed
// operands, non-number operands, and number <-> text conversion.
#include "runtime/number.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "runtime/args.h"
#include "runtime/complex.h"
#include "runtime/error.h"
#include "runtime/exact.h"

namespace kiln {

SplitMix64 g_lisp_random;

void division_by_zero() { throw_error("division by zero"); }

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
static int first_non_number(Value a) { return is_any_number(a) ? 1 : 0; }
// Both are numbers and at least one is complex (checked after the real cases).
static bool complex_operands(Value a, Value b) {
  return (is_compnum(a) || is_compnum(b)) && is_any_number(a) && is_any_number(b);
}

Value num_add_slow(Value a, Value b) {
  if (is_exact(a) && is_exact(b)) return exact_add(a, b);
  if (is_number(a) && is_number(b)) return make_double(number_as_double(a) + number_as_double(b));
  if (complex_operands(a, b)) return complex_add(a, b);
  Value argv[2] = {a, b};
  return not_a_number("+", 2, argv, first_non_number(a));
}

Value num_sub_slow(Value a, Value b) {
  if (is_exact(a) && is_exact(b)) return exact_sub(a, b);
  if (is_number(a) && is_number(b)) return make_double(number_as_double(a) - number_as_double(b));
  if (complex_operands(a, b)) return complex_sub(a, b);
  Value argv[2] = {a, b};
  return not_a_number("-", 2, argv, first_non_number(a));
}

Value num_mul_slow(Value a, Value b) {
  if (is_exact(a) && is_exact(b)) return exact_mul(a, b);
  if (is_number(a) && is_number(b)) return make_double(number_as_double(a) * number_as_double(b));
  if (complex_operands(a, b)) return complex_mul(a, b);
  Value argv[2] = {a, b};
  return not_a_number("*", 2, argv, first_non_number(a));
}

Value num_div(Value a, Value b) {
  if (is_exact(a) && is_exact(b)) {
    if (exact_sign(b) == 0) division_by_zero();
    if (both_fixnums(a, b) && fixnum_of(a) % fixnum_of(b) == 0) return make_int(fixnum_of(a) / fixnum_of(b));
    return exact_div(a, b);
  }
  if (is_number(a) && is_number(b)) return make_double(number_as_double(a) / number_as_double(b));
  if (complex_operands(a, b)) return complex_div(a, b);
  Value argv[2] = {a, b};
  return not_a_number("/", 2, argv, first_non_number(a));
}

Value num_negate(Value a) {
  if (is_fixnum(a)) return make_int(-fixnum_of(a));
  if (is_exact(a)) return exact_negate(a);
  if (is_double(a)) return make_double(-double_of(a));
  if (is_compnum(a)) return complex_negate(a);
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
  if (op == Cmp::EQ && complex_operands(a, b)) return complex_equal(a, b);
  if (!is_number(a)) type_error(who, 1, "a number", a);
  if (!is_number(b)) type_error(who, 2, "a number", b);
  int c;
  if (is_exact(a) && is_exact(b)) {
    c = compare_exact(a, b);
  } else if (is_double(a) && is_double(b)) {
    double x = double_of(a), y = double_of(b);
    if (x != x || y != y) return false;
    c = x < y ? -1 : (x > y ? 1 : 0);
  } else if (is_double(a)) {
    double x = double_of(a);
    if (x != x) return false;
    c = -compare_exact_double(b, x);
  } else {
    double y = double_of(b);
    if (y != y) return false;
    c = compare_exact_double(a, y);
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
  if (b == -1) return a == INT64_MIN ? a : -a;  // the one overflow wraps; callers pass fixnums
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

Value exact_of_double(const char *who, int pos, double d) {
  if (!std::isfinite(d)) type_error(who, pos, "a finite number", make_double(d));
  return exact_of_finite_double(d);
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

// The exactness a #e or #i prefix asks for.
enum class Exactness { Default, Exact, Inexact };

static bool all_digits(std::string_view s, int radix) {
  if (s.empty()) return false;
  for (char c : s)
    if (digit_in_radix(c, radix) < 0) return false;
  return true;
}

// The exact rational a decimal literal (is_decimal_float_syntax) denotes: #e1.5 -> 3/2.
static Value exact_decimal(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
  std::string digits;
  int64_t exp10 = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') digits += s[i++];
  if (i < s.size() && s[i] == '.') {
    for (i++; i < s.size() && s[i] >= '0' && s[i] <= '9'; i++, exp10--) digits += s[i];
  }
  if (i < s.size()) {  // exponent marker, sign, digits (capped: any cap past the bit limit is refused alike)
    bool exp_negative = false;
    if (s[++i] == '+' || s[i] == '-') exp_negative = s[i++] == '-';
    int64_t e = 0;
    for (; i < s.size(); i++) e = std::min<int64_t>(e * 10 + (s[i] - '0'), int64_t(1) << 40);
    exp10 += exp_negative ? -e : e;
  }
  Value mantissa = exact_integer_from_digits(digits, 10, negative);
  if (exact_sign(mantissa) == 0) return make_fixnum(0);
  uint64_t magnitude = uint64_t(exp10 < 0 ? -exp10 : exp10);
  check_exact_bits(uint64_t(double(magnitude) * 3.3219280948873622));  // bits of 10^magnitude
  Mpz power;
  mpz_ui_pow_ui(power, 10, magnitude);
  Value p = value_of_mpz(power);
  return exp10 >= 0 ? exact_mul(mantissa, p) : make_ratio(mantissa, p);
}

static Value parse_real(std::string_view s, int radix, Exactness exactness, std::string *refused) {
  bool special = true;
  double value = 0;
  if (ascii_iequal(s, "+inf.0")) value = HUGE_VAL;
  else if (ascii_iequal(s, "-inf.0")) value = -HUGE_VAL;
  else if (ascii_iequal(s, "+nan.0") || ascii_iequal(s, "-nan.0")) value = NAN;
  else special = false;
  if (special) return exactness == Exactness::Exact ? NOVALUE : make_double(value);
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  std::string_view body = s.substr(i);
  size_t slash = body.find('/');
  if (slash != std::string_view::npos) {
    std::string_view num_text = body.substr(0, slash), den_text = body.substr(slash + 1);
    if (!all_digits(num_text, radix) || !all_digits(den_text, radix)) return NOVALUE;
    Value num = exact_integer_from_digits(num_text, radix, negative);
    Value den = exact_integer_from_digits(den_text, radix, false);
    if (exact_sign(den) == 0) {
      if (exactness == Exactness::Inexact)
        return make_double(exact_sign(num) == 0 ? NAN : (negative ? -HUGE_VAL : HUGE_VAL));
      if (refused) *refused = "division by zero in " + std::string(s);
      return NOVALUE;
    }
    Value q = make_ratio(num, den);
    return exactness == Exactness::Inexact ? make_double(exact_to_double(q)) : q;
  }
  if (all_digits(body, radix)) {
    Value n = exact_integer_from_digits(body, radix, negative);
    if (exactness != Exactness::Inexact) return n;
    return make_double(negative && exact_sign(n) == 0 ? -0.0 : exact_to_double(n));
  }
  if (radix != 10 || !is_decimal_float_syntax(s)) return NOVALUE;
  if (exactness == Exactness::Exact) return exact_decimal(s);
  std::string text(s);
  for (char &c : text)
    if (is_exponent_marker(c)) c = 'e';  // strtod knows only e
  return make_double(std::strtod(text.c_str(), nullptr));
}

// R7RS complex syntax (a+bi, a-i, +bi, r@theta), made into a number by
// make_rectangular / make_polar: 3+0i is the real 3, 1@0 the real 1.
static Value complex_syntax(std::string_view s, int radix, Exactness exactness, std::string *refused) {
  auto real_of = [&](std::string_view t) {
    return t.empty() ? NOVALUE : parse_real(t, radix, exactness, refused);
  };
  size_t at = s.find('@');
  if (at != std::string_view::npos) {
    Value magnitude = real_of(s.substr(0, at)), angle = real_of(s.substr(at + 1));
    if (magnitude == NOVALUE || angle == NOVALUE) return NOVALUE;
    Value z = make_polar(magnitude, angle);
    // #e1@1: the exact number nearest to the float complex the polar form gives.
    if (exactness == Exactness::Exact && is_compnum(z)) {
      if (!std::isfinite(double_of(real_part(z))) || !std::isfinite(double_of(imag_part(z)))) return NOVALUE;
      z = make_rectangular(exact_of_finite_double(double_of(real_part(z))),
                           exact_of_finite_double(double_of(imag_part(z))));
    }
    return z;
  }
  if (s.empty() || (s.back() | 0x20) != 'i') return NOVALUE;
  std::string_view body = s.substr(0, s.size() - 1);
  size_t split = std::string_view::npos;  // the imaginary part's sign: the last one not an exponent's
  for (size_t j = body.size(); j-- > 0;) {
    if (body[j] != '+' && body[j] != '-') continue;
    if (j >= 2 && radix == 10 && is_exponent_marker(body[j - 1]) &&
        ((body[j - 2] >= '0' && body[j - 2] <= '9') || body[j - 2] == '.'))
      continue;
    split = j;
    break;
  }
  if (split == std::string_view::npos) return NOVALUE;
  std::string_view real_text = body.substr(0, split), imag_text = body.substr(split);
  Value real = real_text.empty() ? make_fixnum(0) : real_of(real_text);
  Value imag = imag_text.size() == 1 ? make_fixnum(imag_text[0] == '-' ? -1 : 1) : real_of(imag_text);
  if (real == NOVALUE || imag == NOVALUE) return NOVALUE;
  if (exactness == Exactness::Inexact) {
    real = make_double(number_as_double(real));
    imag = make_double(number_as_double(imag));
  }
  return make_rectangular(real, imag);
}

Value parse_number(std::string_view text, int radix, std::string *refused) {
  Exactness exactness = Exactness::Default;
  bool radix_given = false;
  while (text.size() >= 2 && text[0] == '#') {
    char c = char(std::tolower((unsigned char)text[1]));
    if (c == 'x' || c == 'o' || c == 'b' || c == 'd') {
      if (radix_given) return NOVALUE;
      radix_given = true;
      radix = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 10;
    } else if (c == 'e' || c == 'i') {
      if (exactness != Exactness::Default) return NOVALUE;
      exactness = c == 'e' ? Exactness::Exact : Exactness::Inexact;
    } else {
      return NOVALUE;
    }
    text.remove_prefix(2);
  }
  if (text.empty()) return NOVALUE;
  Value v = parse_real(text, radix, exactness, refused);
  if (v != NOVALUE || (refused && !refused->empty())) return v;
  return complex_syntax(text, radix, exactness, refused);
}

}  // namespace kiln

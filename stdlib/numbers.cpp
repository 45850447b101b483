// numbers.cpp — the numeric builtins of docs/language.md and R7RS (scheme base/inexact).
//
// Invariant: arithmetic goes through runtime/number.h, so the builtins and the
// evaluator agree on overflow, division and promotion rules. Every non-number
// argument goes through not_a_number(), which gives tensors and symbolic values
// to g_generic_arith before raising the type error; that check sits only on
// the path where a type test already failed.
#include <cmath>

#include "../runtime/eval.h"
#include "../runtime/number.h"
#include "builtins.h"

namespace kiln {
namespace {

// ---- + - * / ------------------------------------------------------------

Value b_add(int argc, Value *argv) {
  if (argc == 2) return num_add(argv[0], argv[1]);
  Value acc = make_fixnum(0);
  for (int i = 0; i < argc; i++) {
    if (!is_number(argv[i])) return not_a_number("+", argc, argv, i);
    acc = num_add(acc, argv[i]);
  }
  return acc;
}

Value b_mul(int argc, Value *argv) {
  if (argc == 2) return num_mul(argv[0], argv[1]);
  Value acc = make_fixnum(1);
  for (int i = 0; i < argc; i++) {
    if (!is_number(argv[i])) return not_a_number("*", argc, argv, i);
    acc = num_mul(acc, argv[i]);
  }
  return acc;
}

Value b_sub(int argc, Value *argv) {
  if (argc == 2) return num_sub(argv[0], argv[1]);
  if (argc == 1) return num_negate(argv[0]);
  for (int i = 0; i < argc; i++)
    if (!is_number(argv[i])) return not_a_number("-", argc, argv, i);
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = num_sub(acc, argv[i]);
  return acc;
}

Value b_div(int argc, Value *argv) {
  if (argc == 2) return num_div(argv[0], argv[1]);
  for (int i = 0; i < argc; i++)
    if (!is_number(argv[i])) return not_a_number("/", argc, argv, i);
  if (argc == 1) return num_div(make_fixnum(1), argv[0]);
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = num_div(acc, argv[i]);
  return acc;
}

// ---- comparisons ----------------------------------------------------------

Value compare_chain(Cmp op, const char *who, int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (!is_number(argv[i])) return not_a_number(who, argc, argv, i);
  for (int i = 0; i + 1 < argc; i++)
    if (!num_compare_slow(op, who, argv[i], argv[i + 1])) return FALSE_V;
  return TRUE_V;
}

Value b_num_eq(int argc, Value *argv) {
  if (argc == 2 && both_fixnums(argv[0], argv[1])) return boolv(argv[0] == argv[1]);
  return compare_chain(Cmp::EQ, "=", argc, argv);
}
Value b_lt(int argc, Value *argv) {
  if (argc == 2 && both_fixnums(argv[0], argv[1])) return boolv(fixnum_of(argv[0]) < fixnum_of(argv[1]));
  return compare_chain(Cmp::LT, "<", argc, argv);
}
Value b_gt(int argc, Value *argv) {
  if (argc == 2 && both_fixnums(argv[0], argv[1])) return boolv(fixnum_of(argv[0]) > fixnum_of(argv[1]));
  return compare_chain(Cmp::GT, ">", argc, argv);
}
Value b_le(int argc, Value *argv) {
  if (argc == 2 && both_fixnums(argv[0], argv[1])) return boolv(fixnum_of(argv[0]) <= fixnum_of(argv[1]));
  return compare_chain(Cmp::LE, "<=", argc, argv);
}
Value b_ge(int argc, Value *argv) {
  if (argc == 2 && both_fixnums(argv[0], argv[1])) return boolv(fixnum_of(argv[0]) >= fixnum_of(argv[1]));
  return compare_chain(Cmp::GE, ">=", argc, argv);
}

// min/max: exact comparison; a float anywhere makes the result a float; a
// NaN anywhere makes it NaN.
Value extremum(Cmp better, const char *who, int argc, Value *argv) {
  bool any_float = false, any_nan = false;
  for (int i = 0; i < argc; i++) {
    if (!is_number(argv[i])) return not_a_number(who, argc, argv, i);
    if (is_double(argv[i])) {
      any_float = true;
      if (std::isnan(double_of(argv[i]))) any_nan = true;
    }
  }
  if (any_nan) return make_double(NAN);
  Value best = argv[0];
  for (int i = 1; i < argc; i++)
    if (num_compare_slow(better, who, argv[i], best)) best = argv[i];
  return any_float ? make_double(number_as_double(best)) : best;
}
Value b_max(int argc, Value *argv) { return extremum(Cmp::GT, "max", argc, argv); }
Value b_min(int argc, Value *argv) { return extremum(Cmp::LT, "min", argc, argv); }

// ---- one-argument functions ---------------------------------------------

Value b_abs(int argc, Value *argv) {
  Value v = argv[0];
  if (is_int(v)) {
    int64_t n = int_of(v);
    return n < 0 ? make_int(checked_sub("abs", 0, n)) : v;
  }
  if (is_double(v)) return make_double(std::fabs(double_of(v)));
  return not_a_number("abs", argc, argv, 0);
}

Value b_square(int argc, Value *argv) {
  Value v = argv[0];
  if (is_int(v)) return make_int(checked_mul("square", int_of(v), int_of(v)));
  if (is_double(v)) return make_double(double_of(v) * double_of(v));
  return not_a_number("square", argc, argv, 0);
}

// Rounding: integers are already integral; floats stay floats (R7RS).
template <double (*F)(double)> Value rounding(const char *who, Value v) {
  if (is_int(v)) return v;
  if (is_double(v)) return make_double(F(double_of(v)));
  type_error(who, 1, "a number", v);
}
double round_half_even(double d) { return std::nearbyint(d); }  // default mode: ties to even
double floor_d(double d) { return std::floor(d); }
double ceil_d(double d) { return std::ceil(d); }
double trunc_d(double d) { return std::trunc(d); }
Value b_floor(int, Value *argv) { return rounding<floor_d>("floor", argv[0]); }
Value b_ceiling(int, Value *argv) { return rounding<ceil_d>("ceiling", argv[0]); }
Value b_round(int, Value *argv) { return rounding<round_half_even>("round", argv[0]); }
Value b_truncate(int, Value *argv) { return rounding<trunc_d>("truncate", argv[0]); }

// Floating functions of one argument (always a float result).
template <double (*F)(double)> Value float_fn(const char *who, int argc, Value *argv) {
  if (is_number(argv[0])) return make_double(F(number_as_double(argv[0])));
  return not_a_number(who, argc, argv, 0);
}
double exp_d(double d) { return std::exp(d); }
double sin_d(double d) { return std::sin(d); }
double cos_d(double d) { return std::cos(d); }
double tan_d(double d) { return std::tan(d); }
double asin_d(double d) { return std::asin(d); }
double acos_d(double d) { return std::acos(d); }
Value b_exp(int argc, Value *argv) { return float_fn<exp_d>("exp", argc, argv); }
Value b_sin(int argc, Value *argv) { return float_fn<sin_d>("sin", argc, argv); }
Value b_cos(int argc, Value *argv) { return float_fn<cos_d>("cos", argc, argv); }
Value b_tan(int argc, Value *argv) { return float_fn<tan_d>("tan", argc, argv); }
Value b_asin(int argc, Value *argv) { return float_fn<asin_d>("asin", argc, argv); }
Value b_acos(int argc, Value *argv) { return float_fn<acos_d>("acos", argc, argv); }

Value b_log(int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (!is_number(argv[i])) return not_a_number("log", argc, argv, i);
  double x = std::log(number_as_double(argv[0]));
  if (argc == 2) x /= std::log(number_as_double(argv[1]));
  return make_double(x);
}

Value b_atan(int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (!is_number(argv[i])) return not_a_number("atan", argc, argv, i);
  if (argc == 2) return make_double(std::atan2(number_as_double(argv[0]), number_as_double(argv[1])));
  return make_double(std::atan(number_as_double(argv[0])));
}

// floor(sqrt(n)) for n >= 0, exact for all of int64.
int64_t isqrt(int64_t n) {
  int64_t s = int64_t(std::sqrt(double(n)));
  while (__int128(s) * s > n) s--;
  while (__int128(s + 1) * (s + 1) <= n) s++;
  return s;
}

// An exact square root for a perfect square, else a float; (sqrt -4) is NaN
// since Kiln has no complex numbers.
Value b_sqrt(int argc, Value *argv) {
  Value v = argv[0];
  if (is_int(v) && int_of(v) >= 0) {
    int64_t s = isqrt(int_of(v));
    if (s * s == int_of(v)) return make_int(s);
  }
  if (is_number(v)) return make_double(std::sqrt(number_as_double(v)));
  return not_a_number("sqrt", argc, argv, 0);
}

Value b_exact_integer_sqrt(int, Value *argv) {
  int64_t n = arg_index("exact-integer-sqrt", 1, argv[0]);
  int64_t s = isqrt(n);
  Value r[2] = {make_int(s), make_int(n - s * s)};
  return make_values(2, r);
}

Value b_expt(int argc, Value *argv) {
  for (int i = 0; i < 2; i++)
    if (!is_number(argv[i])) return not_a_number("expt", argc, argv, i);
  Value base = argv[0], power = argv[1];
  if (is_int(base) && is_int(power)) {
    int64_t b = int_of(base), e = int_of(power);
    if (e < 0) {
      if (b == 0) division_by_zero();
      return make_double(std::pow(double(b), double(e)));
    }
    int64_t result = 1;
    while (e > 0) {  // square-and-multiply; stops before squaring past the last bit
      if (e & 1) result = checked_mul("expt", result, b);
      e >>= 1;
      if (e) b = checked_mul("expt", b, b);
    }
    return make_int(result);
  }
  return make_double(std::pow(number_as_double(base), number_as_double(power)));
}

// ---- exactness -------------------------------------------------------------

Value to_exact(const char *who, Value v) {
  if (is_int(v)) return v;
  if (is_double(v)) return make_int(exact_of_double(who, 1, double_of(v)));
  type_error(who, 1, "a number", v);
}
Value to_inexact(const char *who, Value v) {
  if (is_double(v)) return v;
  if (is_int(v)) return make_double(double(int_of(v)));
  type_error(who, 1, "a number", v);
}
Value b_exact(int, Value *argv) { return to_exact("exact", argv[0]); }
Value b_inexact_to_exact(int, Value *argv) { return to_exact("inexact->exact", argv[0]); }
Value b_inexact(int, Value *argv) { return to_inexact("inexact", argv[0]); }
Value b_exact_to_inexact(int, Value *argv) { return to_inexact("exact->inexact", argv[0]); }

// ---- predicates ------------------------------------------------------------

bool is_integral_double(Value v) {
  return is_double(v) && std::isfinite(double_of(v)) && double_of(v) == std::trunc(double_of(v));
}
Value b_number_p(int, Value *argv) { return boolv(is_number(argv[0])); }
Value b_integer_p(int, Value *argv) { return boolv(is_int(argv[0]) || is_integral_double(argv[0])); }
Value b_rational_p(int, Value *argv) {
  return boolv(is_int(argv[0]) || (is_double(argv[0]) && std::isfinite(double_of(argv[0]))));
}
Value b_float_p(int, Value *argv) { return boolv(is_double(argv[0])); }
Value b_exact_integer_p(int, Value *argv) { return boolv(is_int(argv[0])); }

Value b_exact_p(int, Value *argv) {
  arg_num("exact?", 1, argv[0]);
  return boolv(is_int(argv[0]));
}
Value b_inexact_p(int, Value *argv) {
  arg_num("inexact?", 1, argv[0]);
  return boolv(is_double(argv[0]));
}
Value b_nan_p(int, Value *argv) { return boolv(std::isnan(arg_num("nan?", 1, argv[0]))); }
Value b_infinite_p(int, Value *argv) { return boolv(std::isinf(arg_num("infinite?", 1, argv[0]))); }
Value b_finite_p(int, Value *argv) { return boolv(std::isfinite(arg_num("finite?", 1, argv[0]))); }

// Sign tests compare exactly (a boxed integer never goes through a double).
int sign_of(const char *who, Value v) {
  if (is_int(v)) return int_of(v) < 0 ? -1 : (int_of(v) > 0 ? 1 : 0);
  double d = arg_num(who, 1, v);
  return d < 0 ? -1 : (d > 0 ? 1 : 0);  // NaN counts as neither
}
Value b_zero_p(int, Value *argv) {
  if (is_double(argv[0])) return boolv(double_of(argv[0]) == 0.0);
  return boolv(sign_of("zero?", argv[0]) == 0);
}
Value b_positive_p(int, Value *argv) { return boolv(sign_of("positive?", argv[0]) > 0); }
Value b_negative_p(int, Value *argv) { return boolv(sign_of("negative?", argv[0]) < 0); }

// An integer argument, or a float with an integral value (R7RS allows both
// for the integer operations); sets *is_float for the latter.
double arg_integer_value(const char *who, int pos, Value v, bool *is_float) {
  if (is_int(v)) return double(int_of(v));
  if (is_integral_double(v)) {
    *is_float = true;
    return double_of(v);
  }
  type_error(who, pos, "an integer", v);
}
Value b_odd_p(int, Value *argv) {
  if (is_int(argv[0])) return boolv(int_of(argv[0]) & 1);
  bool f = false;
  return boolv(std::fmod(arg_integer_value("odd?", 1, argv[0], &f), 2.0) != 0.0);
}
Value b_even_p(int, Value *argv) {
  if (is_int(argv[0])) return boolv(!(int_of(argv[0]) & 1));
  bool f = false;
  return boolv(std::fmod(arg_integer_value("even?", 1, argv[0], &f), 2.0) == 0.0);
}

// ---- integer division --------------------------------------------------------

enum class DivKind { TruncQ, TruncR, FloorQ, FloorR };

Value int_division(DivKind kind, const char *who, Value a, Value b) {
  if (is_int(a) && is_int(b)) {
    int64_t x = int_of(a), y = int_of(b);
    if (y == 0) division_by_zero();
    switch (kind) {
    case DivKind::TruncQ: return make_int(y == -1 ? checked_sub(who, 0, x) : x / y);
    case DivKind::TruncR: return make_int(y == -1 ? 0 : x % y);
    case DivKind::FloorQ: return make_int(y == -1 ? checked_sub(who, 0, x) : floor_quotient(x, y));
    case DivKind::FloorR: return make_int(floor_remainder(x, y));
    }
  }
  bool any_float = false;
  double x = arg_integer_value(who, 1, a, &any_float);
  double y = arg_integer_value(who, 2, b, &any_float);
  if (y == 0) division_by_zero();
  double r = std::fmod(x, y);  // exact, sign of x
  switch (kind) {
  case DivKind::TruncQ: return make_double((x - r) / y);
  case DivKind::TruncR: return make_double(r);
  case DivKind::FloorQ:
  case DivKind::FloorR:
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return make_double(kind == DivKind::FloorR ? r : (x - r) / y);
  }
  return UNSPEC;
}
Value b_quotient(int, Value *argv) { return int_division(DivKind::TruncQ, "quotient", argv[0], argv[1]); }
Value b_remainder(int, Value *argv) { return int_division(DivKind::TruncR, "remainder", argv[0], argv[1]); }
Value b_modulo(int, Value *argv) { return int_division(DivKind::FloorR, "modulo", argv[0], argv[1]); }
Value b_mod(int, Value *argv) { return int_division(DivKind::FloorR, "mod", argv[0], argv[1]); }
Value b_truncate_quotient(int, Value *argv) {
  return int_division(DivKind::TruncQ, "truncate-quotient", argv[0], argv[1]);
}
Value b_truncate_remainder(int, Value *argv) {
  return int_division(DivKind::TruncR, "truncate-remainder", argv[0], argv[1]);
}
Value b_floor_quotient(int, Value *argv) {
  return int_division(DivKind::FloorQ, "floor-quotient", argv[0], argv[1]);
}
Value b_floor_remainder(int, Value *argv) {
  return int_division(DivKind::FloorR, "floor-remainder", argv[0], argv[1]);
}
Value b_floor_div(int, Value *argv) {
  Value r[2] = {int_division(DivKind::FloorQ, "floor/", argv[0], argv[1]),
                int_division(DivKind::FloorR, "floor/", argv[0], argv[1])};
  return make_values(2, r);
}
Value b_truncate_div(int, Value *argv) {
  Value r[2] = {int_division(DivKind::TruncQ, "truncate/", argv[0], argv[1]),
                int_division(DivKind::TruncR, "truncate/", argv[0], argv[1])};
  return make_values(2, r);
}

// ---- gcd, lcm, numerator, denominator --------------------------------------------

uint64_t magnitude(int64_t n) { return n < 0 ? 0 - uint64_t(n) : uint64_t(n); }
uint64_t gcd_u(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
Value b_gcd(int argc, Value *argv) {
  uint64_t g = 0;
  for (int i = 0; i < argc; i++) g = gcd_u(g, magnitude(arg_int("gcd", i + 1, argv[i])));
  if (g > uint64_t(INT64_MAX)) integer_overflow("gcd");
  return make_int(int64_t(g));
}
Value b_lcm(int argc, Value *argv) {
  uint64_t l = 1;
  for (int i = 0; i < argc; i++) {
    uint64_t m = magnitude(arg_int("lcm", i + 1, argv[i]));
    if (m == 0) {
      l = 0;
      continue;
    }
    if (l == 0) continue;
    if (__builtin_mul_overflow(l / gcd_u(l, m), m, &l)) integer_overflow("lcm");
  }
  if (l > uint64_t(INT64_MAX)) integer_overflow("lcm");
  return make_int(int64_t(l));
}
Value b_numerator(int, Value *argv) {
  bool is_float = false;
  arg_integer_value("numerator", 1, argv[0], &is_float);
  return argv[0];
}
Value b_denominator(int, Value *argv) {
  bool is_float = false;
  arg_integer_value("denominator", 1, argv[0], &is_float);
  return is_float ? make_double(1.0) : make_fixnum(1);
}

Value b_inc(int, Value *argv) {
  if (!is_number(argv[0])) return not_a_number("1+", 1, argv, 0);
  return num_add(argv[0], make_fixnum(1));
}
Value b_dec(int, Value *argv) {
  if (!is_number(argv[0])) return not_a_number("1-", 1, argv, 0);
  return num_sub(argv[0], make_fixnum(1));
}

// ---- random ------------------------------------------------------------------

Value b_random(int, Value *argv) {
  Value limit = argv[0];
  if (is_int(limit) && int_of(limit) > 0)
    return make_int(int64_t(g_lisp_random.below(uint64_t(int_of(limit)))));
  if (is_double(limit) && double_of(limit) > 0 && std::isfinite(double_of(limit)))
    return make_double(g_lisp_random.next_double() * double_of(limit));
  type_error("random", 1, "a positive number", limit);
}
Value b_random_seed(int, Value *argv) {
  g_lisp_random = SplitMix64(uint64_t(arg_int("random-seed!", 1, argv[0])));
  return UNSPEC;
}

BuiltinRegistrar reg([] {
  defbuiltin("+", 0, -1, b_add, "(+ N ...) sum; integers stay integers, overflow is an error");
  defbuiltin("-", 1, -1, b_sub, "(- N) negation, (- N M ...) difference");
  defbuiltin("*", 0, -1, b_mul, "(* N ...) product");
  defbuiltin("/", 1, -1, b_div, "(/ N M ...) quotient: an integer when exact, else a float");
  defbuiltin("=", 1, -1, b_num_eq, "(= N M ...) numeric equality");
  defbuiltin("<", 1, -1, b_lt, "(< N M ...) strictly increasing");
  defbuiltin(">", 1, -1, b_gt, "(> N M ...) strictly decreasing");
  defbuiltin("<=", 1, -1, b_le, "(<= N M ...) non-decreasing");
  defbuiltin(">=", 1, -1, b_ge, "(>= N M ...) non-increasing");
  defbuiltin("max", 1, -1, b_max, "(max N ...) largest; a float if any argument is");
  defbuiltin("min", 1, -1, b_min, "(min N ...) smallest; a float if any argument is");
  defbuiltin("abs", 1, 1, b_abs, "(abs N) absolute value");
  defbuiltin("magnitude", 1, 1, b_abs, "(magnitude N) absolute value (no complex numbers)");
  defbuiltin("square", 1, 1, b_square, "(square N) N times N");
  defbuiltin("floor", 1, 1, b_floor, "(floor N) largest integral value <= N");
  defbuiltin("ceiling", 1, 1, b_ceiling, "(ceiling N) smallest integral value >= N");
  defbuiltin("round", 1, 1, b_round, "(round N) nearest integral value, ties to even");
  defbuiltin("truncate", 1, 1, b_truncate, "(truncate N) integral part of N");
  defbuiltin("exp", 1, 1, b_exp, "(exp X) e to the X");
  defbuiltin("log", 1, 2, b_log, "(log X) natural logarithm, (log X B) logarithm base B");
  defbuiltin("sin", 1, 1, b_sin, "(sin X)");
  defbuiltin("cos", 1, 1, b_cos, "(cos X)");
  defbuiltin("tan", 1, 1, b_tan, "(tan X)");
  defbuiltin("asin", 1, 1, b_asin, "(asin X)");
  defbuiltin("acos", 1, 1, b_acos, "(acos X)");
  defbuiltin("atan", 1, 2, b_atan, "(atan X) or (atan Y X)");
  defbuiltin("sqrt", 1, 1, b_sqrt, "(sqrt N) exact for perfect squares, else a float");
  defbuiltin("exact-integer-sqrt", 1, 1, b_exact_integer_sqrt, "(exact-integer-sqrt N) values S and N - S*S");
  defbuiltin("expt", 2, 2, b_expt, "(expt BASE POWER)");
  defbuiltin("exact", 1, 1, b_exact, "(exact N) the integer equal to N");
  defbuiltin("inexact->exact", 1, 1, b_inexact_to_exact, "(inexact->exact N) the integer equal to N");
  defbuiltin("inexact", 1, 1, b_inexact, "(inexact N) N as a float");
  defbuiltin("exact->inexact", 1, 1, b_exact_to_inexact, "(exact->inexact N) N as a float");
  defbuiltin("number?", 1, 1, b_number_p, "(number? X)");
  defbuiltin("complex?", 1, 1, b_number_p, "(complex? X) same as number?");
  defbuiltin("real?", 1, 1, b_number_p, "(real? X) same as number?");
  defbuiltin("rational?", 1, 1, b_rational_p, "(rational? X) an integer or a finite float");
  defbuiltin("integer?", 1, 1, b_integer_p, "(integer? X) an integer or an integral float");
  defbuiltin("float?", 1, 1, b_float_p, "(float? X)");
  defbuiltin("exact-integer?", 1, 1, b_exact_integer_p, "(exact-integer? X)");
  defbuiltin("exact?", 1, 1, b_exact_p, "(exact? N)");
  defbuiltin("inexact?", 1, 1, b_inexact_p, "(inexact? N)");
  defbuiltin("nan?", 1, 1, b_nan_p, "(nan? N)");
  defbuiltin("infinite?", 1, 1, b_infinite_p, "(infinite? N)");
  defbuiltin("finite?", 1, 1, b_finite_p, "(finite? N)");
  defbuiltin("zero?", 1, 1, b_zero_p, "(zero? N)");
  defbuiltin("positive?", 1, 1, b_positive_p, "(positive? N)");
  defbuiltin("negative?", 1, 1, b_negative_p, "(negative? N)");
  defbuiltin("odd?", 1, 1, b_odd_p, "(odd? N)");
  defbuiltin("even?", 1, 1, b_even_p, "(even? N)");
  defbuiltin("quotient", 2, 2, b_quotient, "(quotient A B) truncated quotient");
  defbuiltin("remainder", 2, 2, b_remainder, "(remainder A B) sign of A");
  defbuiltin("modulo", 2, 2, b_modulo, "(modulo A B) sign of B");
  defbuiltin("mod", 2, 2, b_mod, "(mod A B) same as modulo");
  defbuiltin("truncate-quotient", 2, 2, b_truncate_quotient, "(truncate-quotient A B)");
  defbuiltin("truncate-remainder", 2, 2, b_truncate_remainder, "(truncate-remainder A B)");
  defbuiltin("floor-quotient", 2, 2, b_floor_quotient, "(floor-quotient A B)");
  defbuiltin("floor-remainder", 2, 2, b_floor_remainder, "(floor-remainder A B)");
  defbuiltin("floor/", 2, 2, b_floor_div, "(floor/ A B) values quotient and remainder, floored");
  defbuiltin("truncate/", 2, 2, b_truncate_div, "(truncate/ A B) values quotient and remainder, truncated");
  defbuiltin("gcd", 0, -1, b_gcd, "(gcd N ...) greatest common divisor");
  defbuiltin("lcm", 0, -1, b_lcm, "(lcm N ...) least common multiple");
  defbuiltin("numerator", 1, 1, b_numerator, "(numerator N) N itself (no exact rationals)");
  defbuiltin("denominator", 1, 1, b_denominator, "(denominator N) 1 (no exact rationals)");
  defbuiltin("1+", 1, 1, b_inc, "(1+ N) N plus one");
  defbuiltin("1-", 1, 1, b_dec, "(1- N) N minus one");
  defbuiltin(
      "random", 1, 1, b_random,
      "(random N) integer in [0, N); (random X) float in [0, X). SplitMix64, reseed with random-seed!");
  defbuiltin("random-seed!", 1, 1, b_random_seed, "(random-seed! S) restart random's sequence from seed S");
});

}  // namespace
}  // namespace kiln

// numbers.cpp — the numeric builtins of docs/language.md and R7RS (scheme base/inexact).
//
// Invariant: arithmetic goes through runtime/number.h and runtime/exact.h, so the
// builtins and the evaluator agree on exactness, division and promotion rules. Every non-number
// argument goes through not_a_number(), which gives tensors and symbolic values
// to g_generic_arith before raising the type error; that check sits only on
// the path where a type test already failed.
#include <cmath>
#include <complex>

#include "runtime/complex.h"
#include "runtime/eval.h"
#include "runtime/exact.h"
#include "runtime/exact_worker.h"
#include "runtime/number.h"
#include "stdlib/builtins.h"

namespace kiln {
namespace {

// ---- + - * / ------------------------------------------------------------

Value b_add(int argc, Value *argv) {
  if (argc == 2) return num_add(argv[0], argv[1]);
  Value acc = make_fixnum(0);
  for (int i = 0; i < argc; i++) {
    if (!is_any_number(argv[i])) return not_a_number("+", argc, argv, i);
    acc = num_add(acc, argv[i]);
  }
  return acc;
}

Value b_mul(int argc, Value *argv) {
  if (argc == 2) return num_mul(argv[0], argv[1]);
  Value acc = make_fixnum(1);
  for (int i = 0; i < argc; i++) {
    if (!is_any_number(argv[i])) return not_a_number("*", argc, argv, i);
    acc = num_mul(acc, argv[i]);
  }
  return acc;
}

Value b_sub(int argc, Value *argv) {
  if (argc == 2) return num_sub(argv[0], argv[1]);
  if (argc == 1) return num_negate(argv[0]);
  for (int i = 0; i < argc; i++)
    if (!is_any_number(argv[i])) return not_a_number("-", argc, argv, i);
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = num_sub(acc, argv[i]);
  return acc;
}

Value b_div(int argc, Value *argv) {
  if (argc == 2) return num_div(argv[0], argv[1]);
  for (int i = 0; i < argc; i++)
    if (!is_any_number(argv[i])) return not_a_number("/", argc, argv, i);
  if (argc == 1) return num_div(make_fixnum(1), argv[0]);
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = num_div(acc, argv[i]);
  return acc;
}

// ---- comparisons ----------------------------------------------------------

// = takes complex numbers; the order comparisons raise "must be a real number".
Value compare_chain(Cmp op, const char *who, int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (!(op == Cmp::EQ ? is_any_number(argv[i]) : is_number(argv[i])))
      return not_a_number(who, argc, argv, i);
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
  if (is_fixnum(v)) return fixnum_of(v) < 0 ? make_int(-fixnum_of(v)) : v;
  if (is_exact(v)) return exact_sign(v) < 0 ? exact_negate(v) : v;
  if (is_double(v)) return make_double(std::fabs(double_of(v)));
  return not_a_number("abs", argc, argv, 0);
}

Value b_square(int argc, Value *argv) {
  Value v = argv[0];
  if (is_any_number(v)) return num_mul(v, v);
  return not_a_number("square", argc, argv, 0);
}

// Rounding: integers are already integral; floats stay floats (R7RS); a
// ratnum num/den rounds exactly to an integer.
enum class Rounding { Floor, Ceiling, Round, Truncate };
Value round_ratnum(Rounding mode, Value v) {
  IntView num(ratnum_num(v)), den(ratnum_den(v));
  Mpz r;
  switch (mode) {
  case Rounding::Floor: mpz_fdiv_q(r, num, den); break;
  case Rounding::Ceiling: mpz_cdiv_q(r, num, den); break;
  case Rounding::Truncate: mpz_tdiv_q(r, num, den); break;
  case Rounding::Round: {
    // den > 1 in lowest terms: a tie (x.5) happens only for den = 2, and then goes to the even neighbour.
    mpz_fdiv_q(r, num, den);
    if (mpz_cmp_ui(static_cast<mpz_srcptr>(den), 2) == 0) {
      if (mpz_odd_p(r.z)) mpz_add_ui(r, r, 1);
    } else {
      Mpz twice, twice_den;  // floor((2 num + den) / (2 den))
      mpz_mul_2exp(twice, num, 1);
      mpz_add(twice, twice, den);
      mpz_mul_2exp(twice_den, den, 1);
      mpz_fdiv_q(r, twice, twice_den);
    }
    break;
  }
  }
  return value_of_mpz(r);
}
Value round_exact(Rounding mode, Value v) { return is_ratnum(v) ? round_ratnum(mode, v) : v; }
template <double (*F)(double), Rounding M> Value rounding(const char *who, Value v) {
  if (is_exact_integer(v)) return v;
  if (is_double(v)) return make_double(F(double_of(v)));
  if (is_ratnum(v)) return round_ratnum(M, v);
  type_error(who, 1, "a number", v);
}
double round_half_even(double d) { return std::nearbyint(d); }  // default mode: ties to even
double floor_d(double d) { return std::floor(d); }
double ceil_d(double d) { return std::ceil(d); }
double trunc_d(double d) { return std::trunc(d); }
Value b_floor(int, Value *argv) { return rounding<floor_d, Rounding::Floor>("floor", argv[0]); }
Value b_ceiling(int, Value *argv) { return rounding<ceil_d, Rounding::Ceiling>("ceiling", argv[0]); }
Value b_round(int, Value *argv) { return rounding<round_half_even, Rounding::Round>("round", argv[0]); }
Value b_truncate(int, Value *argv) { return rounding<trunc_d, Rounding::Truncate>("truncate", argv[0]); }

// ---- transcendental functions ------------------------------------------------
// A real argument in the real function's domain gives a float; a complex one,
// or a real outside that domain ((log -1), (asin 2)), a float complex on the
// principal branch R7RS defines.

using Cx = std::complex<double>;

// The argument of a function with a branch cut along the negative real axis
// (sqrt, log, expt). A float complex with a zero imaginary part is taken on the
// axis whatever the zero's sign, as a real is, so it gets R7RS's value on the cut,
// the one continuous with quadrant II: (sqrt -1.0-0.0i) is 0.0+1.0i, not the C
// library's 0.0-1.0i.
Cx cut_argument(Value v) {
  Cx z = as_complex_double(v);
  return z.imag() == 0 ? Cx(z.real(), 0.0) : z;
}

template <double (*F)(double), Cx (*C)(const Cx &)> Value float_fn(const char *who, int argc, Value *argv) {
  Value v = argv[0];
  if (is_number(v)) return make_double(F(number_as_double(v)));
  if (is_compnum(v)) return make_complex_double(C(as_complex_double(v)));
  return not_a_number(who, argc, argv, 0);
}
double exp_d(double d) { return std::exp(d); }
double sin_d(double d) { return std::sin(d); }
double cos_d(double d) { return std::cos(d); }
double tan_d(double d) { return std::tan(d); }
Cx exp_c(const Cx &z) { return std::exp(z); }
Cx sin_c(const Cx &z) { return std::sin(z); }
Cx cos_c(const Cx &z) { return std::cos(z); }
Cx tan_c(const Cx &z) { return std::tan(z); }
Value b_exp(int argc, Value *argv) { return float_fn<exp_d, exp_c>("exp", argc, argv); }
Value b_sin(int argc, Value *argv) { return float_fn<sin_d, sin_c>("sin", argc, argv); }
Value b_cos(int argc, Value *argv) { return float_fn<cos_d, cos_c>("cos", argc, argv); }
Value b_tan(int argc, Value *argv) { return float_fn<tan_d, tan_c>("tan", argc, argv); }

// R7RS's definitions: asin z = -i log(iz + sqrt(1 - z^2)), acos z = pi/2 - asin z,
// atan z = (log(1 + iz) - log(1 - iz)) / 2i.
const Cx kI(0.0, 1.0);
Cx asin_c(const Cx &z) { return -kI * std::log(kI * z + std::sqrt(1.0 - z * z)); }
Cx acos_c(const Cx &z) { return M_PI / 2 - asin_c(z); }
Cx atan_c(const Cx &z) { return (std::log(1.0 + kI * z) - std::log(1.0 - kI * z)) / (2.0 * kI); }
// asin of a real x with |x| > 1, as the definition gives it for an exact zero
// imaginary part (a float complex argument's 0.0 or -0.0 would pick a side of
// the branch cut): sign(x) (pi/2 - i acosh|x|).
Cx asin_beyond_one(double x) {
  double sign = x < 0 ? -1.0 : 1.0;
  return {sign * M_PI / 2, -sign * std::acosh(std::fabs(x))};
}
Value b_asin(int argc, Value *argv) {
  Value v = argv[0];
  if (is_number(v)) {
    double x = number_as_double(v);
    if (std::fabs(x) > 1) return make_complex_double(asin_beyond_one(x));
    return make_double(std::asin(x));
  }
  if (is_compnum(v)) return make_complex_double(asin_c(as_complex_double(v)));
  return not_a_number("asin", argc, argv, 0);
}
Value b_acos(int argc, Value *argv) {
  Value v = argv[0];
  if (is_number(v)) {
    double x = number_as_double(v);
    if (std::fabs(x) > 1) return make_complex_double(M_PI / 2 - asin_beyond_one(x));
    return make_double(std::acos(x));
  }
  if (is_compnum(v)) return make_complex_double(acos_c(as_complex_double(v)));
  return not_a_number("acos", argc, argv, 0);
}

// log of any real number; exact ones beyond the double range keep their magnitude.
double log_of(Value v) {
  if (is_exact(v) && exact_sign(v) > 0) return exact_log(v);
  return std::log(number_as_double(v));
}
// The principal logarithm of any number: a negative real x has log|x| + pi i.
Cx log_complex(Value v) {
  if (is_compnum(v)) return std::log(cut_argument(v));
  if (is_exact(v) && exact_sign(v) < 0) return {exact_log(exact_negate(v)), M_PI};
  if (is_double(v) && double_of(v) < 0) return {std::log(-double_of(v)), M_PI};
  return {log_of(v), 0.0};
}
bool has_real_log(Value v) { return is_number(v) && !(is_exact(v) ? exact_sign(v) < 0 : double_of(v) < 0); }
Value b_log(int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (!is_any_number(argv[i])) return not_a_number("log", argc, argv, i);
  bool real = has_real_log(argv[0]) && (argc == 1 || has_real_log(argv[1]));
  if (real) {
    double x = log_of(argv[0]);
    if (argc == 2) x /= log_of(argv[1]);
    return make_double(x);
  }
  Cx z = log_complex(argv[0]);
  if (argc == 2) z /= log_complex(argv[1]);
  return make_complex_double(z);
}

Value b_atan(int argc, Value *argv) {
  if (argc == 2) {
    for (int i = 0; i < argc; i++)
      if (!is_number(argv[i])) return not_a_number("atan", argc, argv, i);
    return make_double(std::atan2(number_as_double(argv[0]), number_as_double(argv[1])));
  }
  if (is_compnum(argv[0])) return make_complex_double(atan_c(as_complex_double(argv[0])));
  if (!is_number(argv[0])) return not_a_number("atan", argc, argv, 0);
  return make_double(std::atan(number_as_double(argv[0])));
}

// floor(sqrt(n)) for n >= 0, exact for all of int64.
int64_t isqrt(int64_t n) {
  int64_t s = int64_t(std::sqrt(double(n)));
  while (__int128(s) * s > n) s--;
  while (__int128(s + 1) * (s + 1) <= n) s++;
  return s;
}

// The exact square root of an exact integer >= 0 that is a perfect square, else NOVALUE.
Value exact_integer_root(Value v) {
  if (is_fixnum(v)) {
    int64_t s = isqrt(fixnum_of(v));
    return s * s == fixnum_of(v) ? make_int(s) : NOVALUE;
  }
  IntView z(v);
  if (!mpz_perfect_square_p(z)) return NOVALUE;
  Mpz r;
  mpz_sqrt(r, z);
  return value_of_mpz(r);
}

// The exact square root of an exact number >= 0 that is the square of an
// exact number (an integer or a rational), else NOVALUE.
Value exact_root(Value v) {
  if (!is_ratnum(v)) return exact_integer_root(v);
  Value num = exact_integer_root(ratnum_num(v)), den = exact_integer_root(ratnum_den(v));
  return num != NOVALUE && den != NOVALUE ? make_ratio(num, den) : NOVALUE;
}
// The correctly rounded square root of an exact number >= 0.
double exact_sqrt_double(Value v) {
  if (is_fixnum(v)) return std::sqrt(double(fixnum_of(v)));  // exact conversion: one rounding
  return exact_sqrt_to_double(RatView(v));
}

// The principal square root of an exact complex p + qi when both parts of it are
// exact: with m = |z| exact, sqrt z = sqrt((m + p) / 2) + sign(q) sqrt((m - p) / 2) i.
Value exact_complex_root(Value z) {
  Value p = real_part(z), q = imag_part(z);
  Value m = exact_root(exact_add(exact_mul(p, p), exact_mul(q, q)));
  if (m == NOVALUE) return NOVALUE;
  Value half = make_ratio(make_fixnum(1), make_fixnum(2));
  Value re = exact_root(exact_mul(exact_add(m, p), half)), im = exact_root(exact_mul(exact_sub(m, p), half));
  if (re == NOVALUE || im == NOVALUE) return NOVALUE;
  return make_rectangular(re, exact_sign(q) < 0 ? exact_negate(im) : im);
}

// An exact root when the argument is an exact square (of an integer, a rational
// or an exact complex: (sqrt -4) is +2i), else floats: (sqrt 2) the correctly
// rounded float, (sqrt -2.0) 0.0+1.4142135623730951i.
Value b_sqrt(int argc, Value *argv) {
  Value v = argv[0];
  if (is_exact(v)) {
    bool negative = exact_sign(v) < 0;
    Value magnitude = negative ? exact_negate(v) : v;
    Value root = exact_root(magnitude);
    if (!negative) return root != NOVALUE ? root : make_double(exact_sqrt_double(magnitude));
    if (root != NOVALUE) return make_rectangular(make_fixnum(0), root);
    return make_rectangular(make_double(0.0), make_double(exact_sqrt_double(magnitude)));
  }
  if (is_double(v)) {
    double d = double_of(v);
    if (d < 0) return make_rectangular(make_double(0.0), make_double(std::sqrt(-d)));
    return make_double(std::sqrt(d));
  }
  if (is_compnum(v)) {
    if (compnum_is_exact(v)) {
      Value root = exact_complex_root(v);
      if (root != NOVALUE) return root;
    }
    return make_complex_double(std::sqrt(cut_argument(v)));
  }
  return not_a_number("sqrt", argc, argv, 0);
}

Value b_exact_integer_sqrt(int, Value *argv) {
  Value v = argv[0];
  if (!is_exact_integer(v) || exact_sign(v) < 0)
    type_error("exact-integer-sqrt", 1, "a non-negative exact integer", v);
  if (is_fixnum(v)) {
    int64_t n = fixnum_of(v), s = isqrt(n);
    Value r[2] = {make_int(s), make_int(n - s * s)};
    return make_values(2, r);
  }
  Mpz root, rem;
  mpz_sqrtrem(root, rem, IntView(v));
  Value r[2] = {value_of_mpz(root), value_of_mpz(rem)};
  return make_values(2, r);
}

// x^e as steps the worker can stop between (exact_worker.h): x = odd * 2^t is
// raised as odd^e by left-to-right binary powering, one GMP product per step,
// then shifted by t*e (as mpz_pow_ui strips the factors of 2: (expt 2 N) is a
// shift, not N squarings).
ExactWork power_steps(uint64_t e) {
  return [e](mpz_ptr out, mpz_srcptr x, mpz_srcptr, const std::atomic<bool> &cancel) {
    mp_bitcnt_t twos = mpz_scan1(x, 0);  // x != 0
    Mpz odd;
    mpz_tdiv_q_2exp(odd, x, twos);
    mpz_set_ui(out, 1);
    for (int bit = 63 - __builtin_clzll(e); bit >= 0; bit--) {
      if (cancel) return;
      mpz_mul(out, out, out);
      if ((e >> bit) & 1) mpz_mul(out, out, odd);
    }
    if (cancel) return;
    mpz_mul_2exp(out, out, mp_bitcnt_t(twos * e));
  };
}

// base^e for exact base and exact integer e >= 0.
Value exact_power(Value base, Value power) {
  if (base == make_fixnum(0)) return make_fixnum(power == make_fixnum(0) ? 1 : 0);
  if (base == make_fixnum(1)) return base;
  if (base == make_fixnum(-1))
    return make_fixnum((is_fixnum(power) ? fixnum_of(power) : int64_t(as<Bignum>(power)->limbs[0])) & 1 ? -1
                                                                                                        : 1);
  if (!is_fixnum(power)) check_exact_bits(kMaxExactBits + 1);  // |base| >= 2 to a power >= 2^49
  uint64_t e = uint64_t(fixnum_of(power));
  auto raise = [&](Value integer) {
    // The result's size, e * log2|integer|, is refused before GMP spends the
    // time and memory on it (3^(2^31) would take minutes and gigabytes).
    long exponent2;
    double mantissa = mpz_get_d_2exp(&exponent2, IntView(integer));  // integer != 0
    double bits = (std::log2(std::fabs(mantissa)) + double(exponent2)) * double(e);
    if (bits > double(kMaxExactBits)) check_exact_bits(kMaxExactBits + 1);
    if (exact_job_wanted(uint64_t(bits))) return run_exact_job(integer, make_fixnum(0), power_steps(e));
    Mpz r;
    mpz_pow_ui(r, IntView(integer), e);
    return value_of_mpz(r);
  };
  if (!is_ratnum(base)) return raise(base);
  Value num = raise(ratnum_num(base));
  Value den = raise(ratnum_den(base));
  return make_ratio(num, den);  // already in lowest terms; make_ratio only normalises
}

// z^n for a complex z and an exact integer n, by repeated squaring (exact
// for an exact z; (expt 1+i 2) is 2i).
Value complex_integer_power(Value z, Value n) {
  Mpz e;
  mpz_abs(e, IntView(n));
  Value result = make_fixnum(1);
  while (mpz_sgn(e.z) > 0) {
    if (mpz_odd_p(e.z)) result = num_mul(result, z);
    mpz_fdiv_q_2exp(e, e, 1);
    if (mpz_sgn(e.z) > 0) z = num_mul(z, z);
  }
  return exact_sign(n) < 0 ? num_div(make_fixnum(1), result) : result;
}

Value b_expt(int argc, Value *argv) {
  for (int i = 0; i < 2; i++)
    if (!is_any_number(argv[i])) return not_a_number("expt", argc, argv, i);
  Value base = argv[0], power = argv[1];
  if (is_exact(base) && is_exact_integer(power)) {
    if (exact_sign(power) >= 0) return exact_power(base, power);
    if (exact_sign(base) == 0) division_by_zero();
    return num_div(make_fixnum(1), exact_power(base, num_negate(power)));
  }
  if (is_compnum(base) && is_exact_integer(power)) return complex_integer_power(base, power);
  if (is_number(base) && is_number(power)) {
    double b = number_as_double(base), p = number_as_double(power);
    // A negative base to a non-integer power: e^(p log b) on the principal branch.
    if (!(b < 0 && std::isfinite(p) && p != std::trunc(p))) return make_double(std::pow(b, p));
  }
  Cx p = as_complex_double(power);
  // R7RS: 0^z is 0 when the real part of z is positive (the logarithm would be
  // -inf.0); an exact 0 to any other non-zero power is a division by zero.
  if (!is_compnum(base) && number_as_double(base) == 0) {
    if (p.real() > 0) return is_exact(base) && is_exact(real_part(power)) ? make_fixnum(0) : make_double(0.0);
    if (is_exact(base)) division_by_zero();
  }
  // e^(p log b) in polar form: |b|^Re(p) e^(-arg(b) Im(p)) at the angle arg(b) Re(p)
  // + Im(p) log|b|. Raising the magnitude with pow rounds once where exp of a
  // product would round twice: (expt -8 1/3) is 1.0000000000000002+1.7320508075688772i
  // as in Guile and CPython.
  Cx b = cut_argument(base);
  double magnitude = std::hypot(b.real(), b.imag()), angle = std::atan2(b.imag(), b.real());
  double length = std::pow(magnitude, p.real()), phase = angle * p.real();
  if (p.imag() != 0) {
    length /= std::exp(angle * p.imag());
    phase += p.imag() * std::log(magnitude);
  }
  return make_complex_double({length * std::cos(phase), length * std::sin(phase)});
}

// ---- exactness -------------------------------------------------------------

Value to_exact(const char *who, Value v) {
  if (is_exact(v)) return v;
  if (is_double(v)) return exact_of_double(who, 1, double_of(v));
  if (is_compnum(v)) {
    if (compnum_is_exact(v)) return v;
    double re = double_of(real_part(v)), im = double_of(imag_part(v));
    if (!std::isfinite(re) || !std::isfinite(im)) type_error(who, 1, "a finite number", v);
    return make_rectangular(exact_of_finite_double(re), exact_of_finite_double(im));
  }
  type_error(who, 1, "a number", v);
}
Value to_inexact(const char *who, Value v) {
  if (is_double(v)) return v;
  if (is_exact(v)) return make_double(number_as_double(v));
  if (is_compnum(v)) {
    if (!compnum_is_exact(v)) return v;
    return make_rectangular(make_double(number_as_double(real_part(v))),
                            make_double(number_as_double(imag_part(v))));
  }
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
// An integer argument, or a float with an integral value (R7RS allows both
// for the integer operations), as a double; sets *is_float for the latter.
double arg_integer_value(const char *who, int pos, Value v, bool *is_float) {
  if (is_exact_integer(v)) return number_as_double(v);
  if (is_integral_double(v)) {
    *is_float = true;
    return double_of(v);
  }
  type_error(who, pos, "an integer", v);
}
Value b_number_p(int, Value *argv) { return boolv(is_any_number(argv[0])); }
Value b_real_p(int, Value *argv) { return boolv(is_number(argv[0])); }
Value b_integer_p(int, Value *argv) {
  return boolv(is_exact_integer(argv[0]) || is_integral_double(argv[0]));
}
Value b_rational_p(int, Value *argv) {
  return boolv(is_exact(argv[0]) || (is_double(argv[0]) && std::isfinite(double_of(argv[0]))));
}
Value b_float_p(int, Value *argv) { return boolv(is_double(argv[0])); }
Value b_exact_integer_p(int, Value *argv) { return boolv(is_exact_integer(argv[0])); }
Value b_exact_rational_p(int, Value *argv) { return boolv(is_exact(argv[0])); }

Value require_number(const char *who, Value v) {
  if (!is_any_number(v)) type_error(who, 1, "a number", v);
  return v;
}
bool exact_number(Value v) { return is_exact(v) || (is_compnum(v) && compnum_is_exact(v)); }
Value b_exact_p(int, Value *argv) { return boolv(exact_number(require_number("exact?", argv[0]))); }
Value b_inexact_p(int, Value *argv) { return boolv(!exact_number(require_number("inexact?", argv[0]))); }
// Exact numbers are finite and never NaN; a complex number is NaN or infinite
// when a part is, finite when both are.
double float_or_zero(Value part) { return is_double(part) ? double_of(part) : 0.0; }
Value b_nan_p(int, Value *argv) {
  Value v = require_number("nan?", argv[0]);
  return boolv(std::isnan(float_or_zero(real_part(v))) || std::isnan(float_or_zero(imag_part(v))));
}
Value b_infinite_p(int, Value *argv) {
  Value v = require_number("infinite?", argv[0]);
  return boolv(std::isinf(float_or_zero(real_part(v))) || std::isinf(float_or_zero(imag_part(v))));
}
Value b_finite_p(int, Value *argv) {
  Value v = require_number("finite?", argv[0]);
  return boolv(std::isfinite(float_or_zero(real_part(v))) && std::isfinite(float_or_zero(imag_part(v))));
}

// Sign tests compare exactly (an exact number never goes through a double).
int sign_of(const char *who, Value v) {
  if (is_exact(v)) return exact_sign(v);
  double d = arg_num(who, 1, v);
  return d < 0 ? -1 : (d > 0 ? 1 : 0);  // NaN counts as neither
}
Value b_zero_p(int, Value *argv) {
  if (is_double(argv[0])) return boolv(double_of(argv[0]) == 0.0);
  // An exact complex number is never zero (its imaginary part is not), a float one when both parts are.
  if (is_compnum(argv[0]))
    return boolv(!compnum_is_exact(argv[0]) && double_of(real_part(argv[0])) == 0.0 &&
                 double_of(imag_part(argv[0])) == 0.0);
  return boolv(sign_of("zero?", argv[0]) == 0);
}
Value b_positive_p(int, Value *argv) { return boolv(sign_of("positive?", argv[0]) > 0); }
Value b_negative_p(int, Value *argv) { return boolv(sign_of("negative?", argv[0]) < 0); }

// Whether an exact integer is odd: a bignum's lowest limb has the magnitude's parity.
bool exact_integer_odd(Value v) { return is_fixnum(v) ? (fixnum_of(v) & 1) : (as<Bignum>(v)->limbs[0] & 1); }
Value b_odd_p(int, Value *argv) {
  if (is_exact_integer(argv[0])) return boolv(exact_integer_odd(argv[0]));
  bool f = false;
  return boolv(std::fmod(arg_integer_value("odd?", 1, argv[0], &f), 2.0) != 0.0);
}
Value b_even_p(int, Value *argv) {
  if (is_exact_integer(argv[0])) return boolv(!exact_integer_odd(argv[0]));
  bool f = false;
  return boolv(std::fmod(arg_integer_value("even?", 1, argv[0], &f), 2.0) == 0.0);
}

// ---- integer division --------------------------------------------------------

enum class DivKind { TruncQ, TruncR, FloorQ, FloorR };

Value int_division(DivKind kind, const char *who, Value a, Value b) {
  if (both_fixnums(a, b)) {  // |x| < 2^49: neither x / -1 nor any remainder overflows
    int64_t x = fixnum_of(a), y = fixnum_of(b);
    if (y == 0) division_by_zero();
    switch (kind) {
    case DivKind::TruncQ: return make_int(x / y);
    case DivKind::TruncR: return make_int(x % y);
    case DivKind::FloorQ: return make_int(floor_quotient(x, y));
    case DivKind::FloorR: return make_int(floor_remainder(x, y));
    }
  }
  if (is_exact_integer(a) && is_exact_integer(b)) {
    if (exact_sign(b) == 0) division_by_zero();
    IntView x(a), y(b);
    Mpz r;
    switch (kind) {
    case DivKind::TruncQ: mpz_tdiv_q(r, x, y); break;
    case DivKind::TruncR: mpz_tdiv_r(r, x, y); break;
    case DivKind::FloorQ: mpz_fdiv_q(r, x, y); break;
    case DivKind::FloorR: mpz_fdiv_r(r, x, y); break;
    }
    return value_of_mpz(r);
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

// An exact integer argument of gcd/lcm, or an integral float made exact (*any_float set).
Value arg_exact_integer(const char *who, int pos, Value v, bool *any_float) {
  if (is_exact_integer(v)) return v;
  if (is_integral_double(v)) {
    *any_float = true;
    return exact_of_finite_double(double_of(v));
  }
  type_error(who, pos, "an integer", v);
}
Value exact_or_float(Value v, bool inexact) { return inexact ? make_double(number_as_double(v)) : v; }

Value b_gcd(int argc, Value *argv) {
  bool any_float = false;
  Mpz g;
  for (int i = 0; i < argc; i++) mpz_gcd(g, g, IntView(arg_exact_integer("gcd", i + 1, argv[i], &any_float)));
  return exact_or_float(value_of_mpz(g), any_float);
}
Value b_lcm(int argc, Value *argv) {
  bool any_float = false;
  Mpz l;
  mpz_set_ui(l, 1);
  for (int i = 0; i < argc; i++) {
    Value n = arg_exact_integer("lcm", i + 1, argv[i], &any_float);
    check_exact_bits(mpz_sizeinbase(l, 2) + exact_integer_bits(n));
    mpz_lcm(l, l, IntView(n));
  }
  return exact_or_float(value_of_mpz(l), any_float);
}

// numerator/denominator of an exact number, or of a finite float's exact value (as a float).
Value rational_part(const char *who, Value v, bool numerator) {
  Value exact;
  if (is_exact(v)) exact = v;
  else if (is_double(v)) exact = exact_of_double(who, 1, double_of(v));
  else type_error(who, 1, "a number", v);
  Value part = is_ratnum(exact) ? (numerator ? ratnum_num(exact) : ratnum_den(exact))
                                : (numerator ? exact : make_fixnum(1));
  return exact_or_float(part, is_double(v));
}
Value b_numerator(int, Value *argv) { return rational_part("numerator", argv[0], true); }
Value b_denominator(int, Value *argv) { return rational_part("denominator", argv[0], false); }

// The simplest rational in [lo, hi], 0 < lo <= hi (the one with the smallest
// denominator, then numerator): the continued fraction both ends share, then
// the smallest integer the interval's remaining part holds.
Value simplest_positive_rational(Value lo, Value hi) {
  Value prefix = NIL;  // integer parts of the shared continued fraction, innermost first
  Value result;
  for (;;) {
    Value whole = round_exact(Rounding::Floor, lo);
    if (compare_exact(whole, lo) == 0) {
      result = whole;
      break;
    }
    if (compare_exact(whole, round_exact(Rounding::Floor, hi)) < 0) {
      result = exact_add(whole, make_fixnum(1));
      break;
    }
    prefix = cons(whole, prefix);
    Value next_lo = exact_div(make_fixnum(1), exact_sub(hi, whole));
    hi = exact_div(make_fixnum(1), exact_sub(lo, whole));
    lo = next_lo;
  }
  for (; prefix != NIL; prefix = cdr(prefix))
    result = exact_add(car(prefix), exact_div(make_fixnum(1), result));
  return result;
}
Value simplest_rational(Value lo, Value hi) {
  if (exact_sign(lo) > 0) return simplest_positive_rational(lo, hi);
  if (exact_sign(hi) < 0) return exact_negate(simplest_positive_rational(exact_negate(hi), exact_negate(lo)));
  return make_fixnum(0);
}

// R7RS rationalize: the simplest rational within Y of X; a float if either is.
Value b_rationalize(int argc, Value *argv) {
  for (int i = 0; i < 2; i++)
    if (!is_number(argv[i])) return not_a_number("rationalize", argc, argv, i);
  Value x = argv[0], y = argv[1];
  bool inexact = is_double(x) || is_double(y);
  if (inexact) {
    double dx = number_as_double(x), dy = number_as_double(y);
    if (std::isnan(dx) || std::isnan(dy)) return make_double(NAN);
    if (std::isinf(dy)) return make_double(std::isinf(dx) ? NAN : 0.0);
    if (std::isinf(dx)) return make_double(dx);
  }
  Value ex = to_exact("rationalize", x), ey = to_exact("rationalize", y);
  if (exact_sign(ey) < 0) ey = exact_negate(ey);
  Value r = simplest_rational(exact_sub(ex, ey), exact_add(ex, ey));
  return exact_or_float(r, inexact);
}

// ---- (scheme complex) ------------------------------------------------------------

Value real_arg(const char *who, int pos, int argc, Value *argv) {
  if (!is_number(argv[pos - 1])) not_a_number(who, argc, argv, pos - 1);
  return argv[pos - 1];
}
Value number_arg(const char *who, int argc, Value *argv) {
  if (!is_any_number(argv[0])) not_a_number(who, argc, argv, 0);
  return argv[0];
}
Value b_make_rectangular(int argc, Value *argv) {
  return make_rectangular(real_arg("make-rectangular", 1, argc, argv),
                          real_arg("make-rectangular", 2, argc, argv));
}
Value b_make_polar(int argc, Value *argv) {
  return make_polar(real_arg("make-polar", 1, argc, argv), real_arg("make-polar", 2, argc, argv));
}
Value b_real_part(int argc, Value *argv) { return real_part(number_arg("real-part", argc, argv)); }
Value b_imag_part(int argc, Value *argv) { return imag_part(number_arg("imag-part", argc, argv)); }
// |z|: exact when z is exact and |z|^2 an exact square ((magnitude 3+4i) is 5).
Value b_magnitude(int argc, Value *argv) {
  Value v = number_arg("magnitude", argc, argv);
  if (!is_compnum(v)) return b_abs(argc, argv);
  Value p = real_part(v), q = imag_part(v);
  if (compnum_is_exact(v)) {
    Value square = exact_add(exact_mul(p, p), exact_mul(q, q));
    Value root = exact_root(square);
    return root != NOVALUE ? root : make_double(exact_sqrt_double(square));
  }
  return make_double(std::hypot(double_of(p), double_of(q)));
}
// The angle of a real: 0 for non-negative numbers, pi for negative ones; of a
// complex number atan2(imag, real), always a float.
Value b_angle(int argc, Value *argv) {
  Value v = number_arg("angle", argc, argv);
  if (is_compnum(v))
    return make_double(std::atan2(number_as_double(imag_part(v)), number_as_double(real_part(v))));
  if (is_double(v)) {
    double d = double_of(v);
    return make_double(std::isnan(d) ? d : (std::signbit(d) ? M_PI : 0.0));
  }
  return exact_sign(v) < 0 ? make_double(M_PI) : make_fixnum(0);
}

Value b_inc(int, Value *argv) {
  if (!is_any_number(argv[0])) return not_a_number("1+", 1, argv, 0);
  return num_add(argv[0], make_fixnum(1));
}
Value b_dec(int, Value *argv) {
  if (!is_any_number(argv[0])) return not_a_number("1-", 1, argv, 0);
  return num_sub(argv[0], make_fixnum(1));
}

// ---- random ------------------------------------------------------------------

// Uniform in [0, limit) for an exact integer limit beyond 64 bits: random
// bits of limit's width, rejected until below it (fewer than 2 draws expected).
Value random_below_bignum(Value limit) {
  uint64_t bits = exact_integer_bits(limit);
  size_t limbs = size_t((bits + 63) / 64);
  Mpz r;
  for (;;) {
    mp_limb_t *p = mpz_limbs_write(r, mp_size_t(limbs));
    for (size_t i = 0; i < limbs; i++) p[i] = g_lisp_random.next();
    if (bits % 64) p[limbs - 1] &= (uint64_t(1) << (bits % 64)) - 1;
    mpz_limbs_finish(r, mp_size_t(limbs));
    if (mpz_cmp(r, IntView(limit)) < 0) return value_of_mpz(r);
  }
}

Value b_random(int, Value *argv) {
  Value limit = argv[0];
  if (is_int(limit) && int_of(limit) > 0)
    return make_int(int64_t(g_lisp_random.below(uint64_t(int_of(limit)))));
  if (is_bignum(limit) && exact_sign(limit) > 0) return random_below_bignum(limit);
  if (is_double(limit) && double_of(limit) > 0 && std::isfinite(double_of(limit)))
    return make_double(g_lisp_random.next_double() * double_of(limit));
  type_error("random", 1, "a positive integer or float", limit);
}
Value b_random_seed(int, Value *argv) {
  g_lisp_random = SplitMix64(uint64_t(arg_int("random-seed!", 1, argv[0])));
  return UNSPEC;
}

BuiltinRegistrar numbers_registrar([] {
  defbuiltin("+", 0, -1, b_add, "(+ N ...) sum; exact numbers stay exact");
  defbuiltin("-", 1, -1, b_sub, "(- N) negation, (- N M ...) difference");
  defbuiltin("*", 0, -1, b_mul, "(* N ...) product");
  defbuiltin("/", 1, -1, b_div, "(/ N M ...) quotient: exact (an integer or a ratio) for exact numbers");
  defbuiltin("=", 1, -1, b_num_eq, "(= N M ...) numeric equality");
  defbuiltin("<", 1, -1, b_lt, "(< N M ...) strictly increasing");
  defbuiltin(">", 1, -1, b_gt, "(> N M ...) strictly decreasing");
  defbuiltin("<=", 1, -1, b_le, "(<= N M ...) non-decreasing");
  defbuiltin(">=", 1, -1, b_ge, "(>= N M ...) non-increasing");
  defbuiltin("max", 1, -1, b_max, "(max N ...) largest; a float if any argument is");
  defbuiltin("min", 1, -1, b_min, "(min N ...) smallest; a float if any argument is");
  defbuiltin("abs", 1, 1, b_abs, "(abs N) absolute value");
  defbuiltin("magnitude", 1, 1, b_magnitude, "(magnitude Z) absolute value of a real or complex number");
  defbuiltin("make-rectangular", 2, 2, b_make_rectangular,
             "(make-rectangular X Y) the complex number X + Yi");
  defbuiltin("make-polar", 2, 2, b_make_polar,
             "(make-polar R A) the complex number with magnitude R and angle A");
  defbuiltin("real-part", 1, 1, b_real_part, "(real-part Z) real part (Z itself for a real number)");
  defbuiltin("imag-part", 1, 1, b_imag_part, "(imag-part Z) imaginary part (0 for a real number)");
  defbuiltin("angle", 1, 1, b_angle, "(angle Z) argument of Z in (-pi, pi]");
  defbuiltin("rationalize", 2, 2, b_rationalize, "(rationalize X Y) simplest rational within Y of X");
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
  defbuiltin("sqrt", 1, 1, b_sqrt,
             "(sqrt Z) principal square root: exact for exact squares ((sqrt -4) is +2i)");
  defbuiltin("exact-integer-sqrt", 1, 1, b_exact_integer_sqrt, "(exact-integer-sqrt N) values S and N - S*S");
  defbuiltin("expt", 2, 2, b_expt, "(expt BASE POWER)");
  defbuiltin("exact", 1, 1, b_exact, "(exact N) the exact rational equal to N");
  defbuiltin("inexact->exact", 1, 1, b_inexact_to_exact, "(inexact->exact N) the exact rational equal to N");
  defbuiltin("inexact", 1, 1, b_inexact, "(inexact N) N as a float");
  defbuiltin("exact->inexact", 1, 1, b_exact_to_inexact, "(exact->inexact N) N as a float");
  defbuiltin("number?", 1, 1, b_number_p, "(number? X)");
  defbuiltin("complex?", 1, 1, b_number_p, "(complex? X) same as number?");
  defbuiltin("real?", 1, 1, b_real_p, "(real? X) a number with no imaginary part (1+0.0i is not real)");
  defbuiltin("rational?", 1, 1, b_rational_p, "(rational? X) an exact number or a finite float");
  defbuiltin("integer?", 1, 1, b_integer_p, "(integer? X) an integer or an integral float");
  defbuiltin("float?", 1, 1, b_float_p, "(float? X)");
  defbuiltin("exact-integer?", 1, 1, b_exact_integer_p, "(exact-integer? X)");
  defbuiltin("exact-rational?", 1, 1, b_exact_rational_p, "(exact-rational? X) an exact integer or ratio");
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
  defbuiltin("numerator", 1, 1, b_numerator, "(numerator Q) numerator in lowest terms");
  defbuiltin("denominator", 1, 1, b_denominator, "(denominator Q) denominator in lowest terms, positive");
  defbuiltin("1+", 1, 1, b_inc, "(1+ N) N plus one");
  defbuiltin("1-", 1, 1, b_dec, "(1- N) N minus one");
  defbuiltin(
      "random", 1, 1, b_random,
      "(random N) exact integer in [0, N); (random X) float in [0, X). SplitMix64, reseed with random-seed!");
  defbuiltin("random-seed!", 1, 1, b_random_seed, "(random-seed! S) restart random's sequence from seed S");
});

}  // namespace
}  // namespace kiln

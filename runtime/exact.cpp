// exact.cpp — exact integers and rationals (exact.h): GMP views and results,
// exact arithmetic and comparison, and correctly rounded conversion to doubles.
#include "exact.h"

#include <cmath>
#include <cstring>

#include "error.h"
#include "gc.h"
#include "number.h"

namespace kiln {

static_assert(sizeof(mp_limb_t) == sizeof(uint64_t), "Bignum limbs are GMP limbs");

void check_exact_bits(uint64_t bits) {
  if (bits > kMaxExactBits) throw_error("out of memory: an exact result of more than 2^31 bits");
}

// Points z at v's magnitude and sign without copying; *small holds a fixnum's limb.
static void view_integer(mpz_ptr z, mp_limb_t *small, Value v) {
  if (is_fixnum(v)) {
    int64_t n = fixnum_of(v);
    *small = n < 0 ? 0 - uint64_t(n) : uint64_t(n);
    mpz_roinit_n(z, small, n < 0 ? -1 : (n > 0 ? 1 : 0));
  } else {
    const Bignum *b = as<Bignum>(v);
    mpz_roinit_n(z, reinterpret_cast<const mp_limb_t *>(b->limbs), b->size);
  }
}

IntView::IntView(Value v) { view_integer(z_, &small_, v); }

RatView::RatView(Value v) {
  if (is_ratnum(v)) {
    view_integer(mpq_numref(q_), &num_small_, ratnum_num(v));
    view_integer(mpq_denref(q_), &den_small_, ratnum_den(v));
  } else {
    view_integer(mpq_numref(q_), &num_small_, v);
    den_small_ = 1;
    mpz_roinit_n(mpq_denref(q_), &den_small_, 1);
  }
}

Value value_of_mpz(mpz_srcptr z) {
  if (mpz_fits_slong_p(z)) return make_int(mpz_get_si(z));
  size_t n = mpz_size(z);
  check_exact_bits(uint64_t(n) * 64 - 63);
  Bignum *b = static_cast<Bignum *>(gc_alloc_atomic(alloc_bytes(n, sizeof(uint64_t), sizeof(Bignum))));
  b->h = ObjHeader{T_BIGNUM, 0, 0, 0};
  b->size = mpz_sgn(z) < 0 ? -int32_t(n) : int32_t(n);
  b->spare = 0;
  std::memcpy(b->limbs, mpz_limbs_read(z), n * sizeof(uint64_t));
  return from_ptr(b);
}

// num/den already in lowest terms with den > 1.
static Value make_ratnum(Value num, Value den) {
  Ratnum *r = alloc_obj<Ratnum>(T_RATNUM);
  r->num = num;
  r->den = den;
  return from_ptr(r);
}

Value value_of_mpq(mpq_srcptr q) {
  if (mpz_cmp_ui(mpq_denref(q), 1) == 0) return value_of_mpz(mpq_numref(q));
  Value num = value_of_mpz(mpq_numref(q));
  Value den = value_of_mpz(mpq_denref(q));
  return make_ratnum(num, den);
}

Value value_of_int128(__int128 n) {
  if (n >= INT64_MIN && n <= INT64_MAX) return make_int(int64_t(n));
  unsigned __int128 m = n < 0 ? 0 - (unsigned __int128)n : (unsigned __int128)n;
  mp_limb_t limbs[2] = {mp_limb_t(uint64_t(m)), mp_limb_t(uint64_t(m >> 64))};
  mpz_t z;
  mpz_roinit_n(z, limbs, n < 0 ? -2 : 2);
  return value_of_mpz(z);
}

static int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - uint64_t(a) : uint64_t(a), y = b < 0 ? 0 - uint64_t(b) : uint64_t(b);
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return int64_t(x);  // both fixnums, so the gcd fits
}

Value make_ratio(Value num, Value den) {
  if (is_fixnum(num) && is_fixnum(den)) {
    int64_t n = fixnum_of(num), d = fixnum_of(den);
    int64_t g = gcd64(n, d);
    n /= g;
    d /= g;
    if (d < 0) n = -n, d = -d;
    if (d == 1) return make_int(n);
    return make_ratnum(make_int(n), make_int(d));
  }
  Mpq q;
  mpz_set(mpq_numref(q.q), IntView(num));
  mpz_set(mpq_denref(q.q), IntView(den));
  mpq_canonicalize(q);
  return value_of_mpq(q);
}

uint64_t exact_integer_bits(Value v) {
  if (is_fixnum(v)) {
    int64_t n = fixnum_of(v);
    uint64_t m = n < 0 ? 0 - uint64_t(n) : uint64_t(n);
    return m ? 64 - uint64_t(__builtin_clzll(m)) : 0;
  }
  const Bignum *b = as<Bignum>(v);
  size_t n = size_t(b->size < 0 ? -b->size : b->size);
  return uint64_t(n) * 64 - uint64_t(__builtin_clzll(b->limbs[n - 1]));
}

// Bits of numerator plus denominator: a bound on the bits an operation on
// two such numbers produces, checked before GMP allocates.
static uint64_t exact_bits(Value v) {
  if (is_ratnum(v)) return exact_integer_bits(ratnum_num(v)) + exact_integer_bits(ratnum_den(v));
  return exact_integer_bits(v);
}

int exact_sign(Value v) {
  if (is_fixnum(v)) return fixnum_of(v) < 0 ? -1 : (fixnum_of(v) > 0 ? 1 : 0);
  if (is_ratnum(v)) return exact_sign(ratnum_num(v));
  return as<Bignum>(v)->size < 0 ? -1 : 1;
}

static int sign3(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

int compare_exact(Value a, Value b) {
  if (is_fixnum(a) && is_fixnum(b))
    return sign3((fixnum_of(a) > fixnum_of(b)) - (fixnum_of(a) < fixnum_of(b)));
  if (!is_ratnum(a) && !is_ratnum(b)) return sign3(mpz_cmp(IntView(a), IntView(b)));
  return sign3(mpq_cmp(RatView(a), RatView(b)));
}

int compare_exact_double(Value a, double d) {
  if (std::isinf(d)) return d > 0 ? -1 : 1;
  if (is_fixnum(a)) {  // |a| < 2^49 converts exactly
    double x = double(fixnum_of(a));
    return x < d ? -1 : (x > d ? 1 : 0);
  }
  Mpq dq;
  mpq_set_d(dq, d);  // exact
  return sign3(mpq_cmp(RatView(a), dq));
}

Value exact_add(Value a, Value b) {
  if (is_fixnum(a) && is_fixnum(b)) return make_int(fixnum_of(a) + fixnum_of(b));
  if (!is_ratnum(a) && !is_ratnum(b)) {
    Mpz r;
    mpz_add(r, IntView(a), IntView(b));
    return value_of_mpz(r);
  }
  check_exact_bits(exact_bits(a) + exact_bits(b));
  Mpq r;
  mpq_add(r, RatView(a), RatView(b));
  return value_of_mpq(r);
}

Value exact_sub(Value a, Value b) {
  if (is_fixnum(a) && is_fixnum(b)) return make_int(fixnum_of(a) - fixnum_of(b));
  if (!is_ratnum(a) && !is_ratnum(b)) {
    Mpz r;
    mpz_sub(r, IntView(a), IntView(b));
    return value_of_mpz(r);
  }
  check_exact_bits(exact_bits(a) + exact_bits(b));
  Mpq r;
  mpq_sub(r, RatView(a), RatView(b));
  return value_of_mpq(r);
}

Value exact_mul(Value a, Value b) {
  if (is_fixnum(a) && is_fixnum(b)) return value_of_int128(__int128(fixnum_of(a)) * fixnum_of(b));
  check_exact_bits(exact_bits(a) + exact_bits(b));
  if (!is_ratnum(a) && !is_ratnum(b)) {
    Mpz r;
    mpz_mul(r, IntView(a), IntView(b));
    return value_of_mpz(r);
  }
  Mpq r;
  mpq_mul(r, RatView(a), RatView(b));
  return value_of_mpq(r);
}

Value exact_div(Value a, Value b) {
  if (!is_ratnum(a) && !is_ratnum(b)) return make_ratio(a, b);
  check_exact_bits(exact_bits(a) + exact_bits(b));
  Mpq r;
  mpq_div(r, RatView(a), RatView(b));
  return value_of_mpq(r);
}

Value exact_negate(Value a) {
  if (is_fixnum(a)) return make_int(-fixnum_of(a));
  if (is_ratnum(a)) {
    Value num = exact_negate(ratnum_num(a));
    return make_ratnum(num, ratnum_den(a));
  }
  Mpz r;
  mpz_neg(r, IntView(a));
  return value_of_mpz(r);
}

double round_scaled_to_double(mpz_srcptr q, bool sticky, int64_t exp2) {
  if (mpz_sgn(q) == 0) return 0.0;
  int64_t top = int64_t(mpz_sizeinbase(q, 2)) - 1 + exp2;  // exponent of the leading bit
  if (top > 1100) return HUGE_VAL;
  int64_t last = std::max<int64_t>(top - 52, -1074);  // exponent of the result's last bit
  int64_t drop = last - exp2;
  if (drop <= 0)
    return std::ldexp(mpz_get_d(q), int(exp2));  // fits: exact (callers give >= 55 bits when sticky)
  Mpz m;
  mpz_tdiv_q_2exp(m, q, mp_bitcnt_t(drop));
  bool half = mpz_tstbit(q, mp_bitcnt_t(drop - 1));
  bool below_half = sticky || mpz_scan1(q, 0) < mp_bitcnt_t(drop - 1);
  uint64_t mantissa = mpz_get_ui(m) + uint64_t(half && (below_half || mpz_odd_p(m.z)));
  return std::ldexp(double(mantissa), int(last));  // mantissa <= 2^53: exact before scaling
}

// floor(n * 2^shift / d) and whether it left a remainder, for n >= 0, d > 0.
static bool scaled_quotient(mpz_ptr quot, mpz_srcptr n, mpz_srcptr d, int64_t shift) {
  Mpz num, den, rem;
  if (shift >= 0) {
    mpz_mul_2exp(num, n, mp_bitcnt_t(shift));
    mpz_fdiv_qr(quot, rem, num, d);
  } else {
    mpz_mul_2exp(den, d, mp_bitcnt_t(-shift));
    mpz_fdiv_qr(quot, rem, n, den);
  }
  return mpz_sgn(rem.z) != 0;
}

double mpq_to_double(mpq_srcptr q) {
  int sign = mpq_sgn(q);
  if (sign == 0) return 0.0;
  mpz_t n;
  mpz_roinit_n(n, mpz_limbs_read(mpq_numref(q)), mp_size_t(mpz_size(mpq_numref(q))));  // |num|
  int64_t shift = 56 - (int64_t(mpz_sizeinbase(n, 2)) - int64_t(mpz_sizeinbase(mpq_denref(q), 2)));
  Mpz quot;
  bool sticky = scaled_quotient(quot, n, mpq_denref(q), shift);
  double d = round_scaled_to_double(quot, sticky, -shift);
  return sign < 0 ? -d : d;
}

double exact_sqrt_to_double(mpq_srcptr q) {
  if (mpq_sgn(q) == 0) return 0.0;
  // sqrt(q) = sqrt(q * 4^k) / 2^k with k chosen so the integer square root has
  // at least 55 bits; floor(sqrt(floor(x))) = floor(sqrt(x)) for x >= 0.
  int64_t lead = int64_t(mpz_sizeinbase(mpq_numref(q), 2)) - int64_t(mpz_sizeinbase(mpq_denref(q), 2));
  int64_t k = (112 - lead + 1) / 2 + 1;
  Mpz t, root, rem;
  bool sticky = scaled_quotient(t, mpq_numref(q), mpq_denref(q), 2 * k);
  mpz_sqrtrem(root, rem, t);
  return round_scaled_to_double(root, sticky || mpz_sgn(rem.z) != 0, -k);
}

double exact_to_double(Value v) {
  if (is_fixnum(v)) return double(fixnum_of(v));
  if (is_ratnum(v)) return mpq_to_double(RatView(v));
  const Bignum *b = as<Bignum>(v);
  mpz_t mag;
  mpz_roinit_n(mag, reinterpret_cast<const mp_limb_t *>(b->limbs), b->size < 0 ? -b->size : b->size);
  double d = round_scaled_to_double(mag, false, 0);
  return b->size < 0 ? -d : d;
}

// log of an exact integer > 0 that may be beyond the double range.
static double integer_log(Value v) {
  double d = exact_to_double(v);
  if (std::isfinite(d)) return std::log(d);
  long e;
  double m = mpz_get_d_2exp(&e, IntView(v));  // v = m * 2^e, m in [0.5, 1)
  return std::log(m) + double(e) * M_LN2;
}

double exact_log(Value v) {
  double d = exact_to_double(v);
  if (std::isfinite(d) && d > 0 && std::isnormal(d)) return std::log(d);
  if (is_ratnum(v)) return integer_log(ratnum_num(v)) - integer_log(ratnum_den(v));
  return integer_log(v);
}

Value exact_of_finite_double(double d) {
  if (d == std::trunc(d) && std::fabs(d) < 0x1p63) return make_int(int64_t(d));
  Mpq q;
  mpq_set_d(q, d);
  mpq_canonicalize(q);
  return value_of_mpq(q);
}

static std::string integer_to_string(Value v, int radix) {
  if (is_fixnum(v)) return int_to_string(fixnum_of(v), radix);
  IntView z(v);
  std::string s(mpz_sizeinbase(z, radix) + 2, '\0');
  mpz_get_str(s.data(), radix, z);
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::string exact_to_string(Value v, int radix) {
  if (is_ratnum(v))
    return integer_to_string(ratnum_num(v), radix) + "/" + integer_to_string(ratnum_den(v), radix);
  return integer_to_string(v, radix);
}

Value exact_integer_from_digits(std::string_view digits, int radix, bool negative) {
  if (digits.size() <= 12) {  // 36^12 < 2^63
    int64_t n = 0;
    for (char c : digits) {
      int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      n = n * radix + d;
    }
    return make_int(negative ? -n : n);
  }
  check_exact_bits(uint64_t(double(digits.size()) * std::log2(double(radix))));
  std::string text(digits);
  Mpz z;
  mpz_set_str(z, text.c_str(), radix);
  if (negative) mpz_neg(z, z);
  return value_of_mpz(z);
}

}  // namespace kiln

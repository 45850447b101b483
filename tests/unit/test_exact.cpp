// Unit tests for runtime/exact.h: correct rounding of bignums and rationals to
// doubles (ties to even, sticky bits far below the mantissa, overflow,
// subnormals), correctly rounded square roots, exact conversion of doubles,
// and the bit limit on exact results.
#include <catch2/catch.hpp>
#include <cmath>

#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/exact.h"
#include "runtime/exact_worker.h"
#include "runtime/number.h"
#include "stdlib/builtins.h"

using namespace kiln;

// 2^e + k as an exact integer.
static Value pow2_plus(uint64_t e, int64_t k) {
  Mpz z;
  mpz_setbit(z, e);
  if (k >= 0) mpz_add_ui(z, z, uint64_t(k));
  else mpz_sub_ui(z, z, uint64_t(-k));
  return value_of_mpz(z);
}

TEST_CASE("bignum to double rounds to nearest, ties to even", "[exact]") {
  gc_init();
  CHECK(exact_to_double(pow2_plus(53, 1)) == 0x1p53);      // tie, even below
  CHECK(exact_to_double(pow2_plus(53, 3)) == 0x1p53 + 4);  // tie, even above
  CHECK(exact_to_double(pow2_plus(54, 2)) == 0x1p54);      // tie at ulp 4
  CHECK(exact_to_double(pow2_plus(54, 6)) == 0x1p54 + 8);  // tie, even above
  CHECK(exact_to_double(pow2_plus(54, 3)) == 0x1p54 + 4);  // above the tie
  CHECK(exact_to_double(exact_negate(pow2_plus(53, 3))) == -(0x1p53 + 4));
  // (2^53 + 1) * 2^100 + 1: the tie is broken by a bit 100 places below it,
  // which a truncating conversion (mpz_get_d) would lose.
  Value far = exact_add(exact_mul(pow2_plus(53, 1), pow2_plus(100, 0)), make_int(1));
  CHECK(exact_to_double(far) == std::ldexp(0x1p53 + 2, 100));
  // The top of the double range: halfway between the largest double and 2^1024
  // rounds up (the largest double's mantissa is odd), just below it rounds down.
  Value half_way = exact_sub(pow2_plus(1024, 0), pow2_plus(970, 0));
  CHECK(exact_to_double(half_way) == HUGE_VAL);
  CHECK(exact_to_double(exact_sub(half_way, make_int(1))) == 0x1.fffffffffffffp1023);
  CHECK(exact_to_double(pow2_plus(5000, 0)) == HUGE_VAL);
}

TEST_CASE("rational to double is correctly rounded", "[exact]") {
  gc_init();
  // For numerators and denominators below 2^53 the hardware division is
  // correctly rounded: the exact path must agree with it everywhere.
  SplitMix64 rng(12345);
  for (int i = 0; i < 20000; i++) {
    int64_t n = int64_t(rng.next() >> (11 + rng.below(50)));
    int64_t d = int64_t(rng.next() >> (11 + rng.below(50))) + 1;
    if (rng.below(2)) n = -n;
    Value q = make_ratio(make_int(n), make_int(d));
    INFO(n << "/" << d);
    CHECK(exact_to_double(q) == double(n) / double(d));
  }
  CHECK(exact_to_double(make_ratio(make_int(1), make_int(3))) == 1.0 / 3.0);
  // Huge numerator and denominator whose quotient is ordinary.
  Value big_third = make_ratio(pow2_plus(3000, 0), exact_mul(make_int(3), pow2_plus(2998, 0)));
  CHECK(exact_to_double(big_third) == 4.0 / 3.0);
}

TEST_CASE("rationals round once in the subnormal range", "[exact]") {
  gc_init();
  Value one = make_int(1);
  CHECK(exact_to_double(make_ratio(one, pow2_plus(1074, 0))) == 0x1p-1074);
  CHECK(exact_to_double(make_ratio(make_int(3), pow2_plus(1076, 0))) == 0x1p-1074);  // 0.75 ulp
  CHECK(exact_to_double(make_ratio(one, pow2_plus(1075, 0))) == 0.0);                // tie to even (0)
  CHECK(exact_to_double(make_ratio(make_int(3), pow2_plus(1075, 0))) == 0x1p-1073);  // tie to even (2 ulp)
  CHECK(exact_to_double(make_ratio(one, pow2_plus(1075, -1))) == 0x1p-1074);         // just above the tie
  CHECK(exact_to_double(make_ratio(one, pow2_plus(1076, 0))) == 0.0);
  CHECK(exact_to_double(make_ratio(one, pow2_plus(1022, 0))) == 0x1p-1022);  // smallest normal
  CHECK(exact_to_double(make_ratio(make_int(-1), pow2_plus(1074, 0))) == -0x1p-1074);
}

TEST_CASE("exact square roots are correctly rounded", "[exact]") {
  gc_init();
  SplitMix64 rng(99);
  for (int i = 0; i < 20000; i++) {
    int64_t n = int64_t(rng.next() >> 11);  // < 2^53: converts exactly, so std::sqrt is the reference
    Mpq q;
    mpq_set_si(q, n, 1);
    INFO(n);
    CHECK(exact_sqrt_to_double(q) == std::sqrt(double(n)));
  }
  Mpq two_big;  // 2^2001 = 2 * 4^1000: sqrt is sqrt(2) * 2^1000, beyond any double conversion of the input
  mpz_setbit(mpq_numref(two_big.q), 2001);
  CHECK(exact_sqrt_to_double(two_big) == std::ldexp(std::sqrt(2.0), 1000));
  Mpq quarter;
  mpq_set_ui(quarter, 1, 4);
  CHECK(exact_sqrt_to_double(quarter) == 0.5);
}

TEST_CASE("doubles convert to the exact rational equal to them", "[exact]") {
  gc_init();
  SplitMix64 rng(7);
  for (int i = 0; i < 5000; i++) {
    uint64_t bits = rng.next();
    double d;
    std::memcpy(&d, &bits, 8);
    if (!std::isfinite(d)) continue;
    Value e = exact_of_finite_double(d);
    INFO(d);
    CHECK(is_exact(e));
    CHECK(exact_to_double(e) == d);
    CHECK(compare_exact_double(e, d) == 0);
    CHECK(compare_exact_double(e, std::nextafter(d, HUGE_VAL)) < 0);
  }
  CHECK(exact_to_string(exact_of_finite_double(0.1), 10) == "3602879701896397/36028797018963968");
  CHECK(exact_to_string(exact_of_finite_double(-1.5), 10) == "-3/2");
  CHECK(exact_to_string(exact_of_finite_double(1e20), 10) == "100000000000000000000");
}

TEST_CASE("exact results are normalised and limited", "[exact]") {
  gc_init();
  CHECK(is_fixnum(make_ratio(make_int(10), make_int(-5))));
  CHECK(exact_to_string(make_ratio(make_int(10), make_int(-4)), 10) == "-5/2");
  CHECK(is_fixnum(exact_mul(make_ratio(make_int(1), make_int(3)), make_int(3))));
  Value big = pow2_plus(100, 0);
  CHECK(is_fixnum(exact_div(big, big)));
  CHECK(exact_to_string(pow2_plus(100, 0), 16) == "10000000000000000000000000");
  CHECK(exact_to_string(exact_negate(pow2_plus(64, 0)), 2) == "-1" + std::string(64, '0'));
  Value huge = pow2_plus(kMaxExactBits / 2 + 8, 0);  // squaring it would pass the limit
  try {
    exact_mul(huge, huge);
    FAIL("no error");
  } catch (LispError &) {
    CHECK(error_message_of(g_raised) == "out of memory: an exact result of more than 2^31 bits");
  }
}

// Integers of at least kExactWorkerBits go to a worker thread (exact_worker.h):
// the results are GMP's, and Ctrl-C (g_interrupt) stops the wait at once.
TEST_CASE("huge exact arithmetic on the worker gives GMP's results", "[exact]") {
  gc_init();
  Value a = pow2_plus(kExactWorkerBits + 5, 12345), b = pow2_plus(kExactWorkerBits - 7, -99);
  Mpz za, zb, want;
  mpz_setbit(za, kExactWorkerBits + 5);
  mpz_add_ui(za, za, 12345);
  mpz_setbit(zb, kExactWorkerBits - 7);
  mpz_sub_ui(zb, zb, 99);
  mpz_add(want, za, zb);
  CHECK(mpz_cmp(IntView(exact_add(a, b)), want) == 0);
  mpz_sub(want, zb, za);
  CHECK(mpz_cmp(IntView(exact_sub(b, a)), want) == 0);
  mpz_mul(want, za, zb);
  CHECK(mpz_cmp(IntView(exact_mul(a, exact_negate(b))), want) == -1);  // negative vs positive
  mpz_neg(want, want);
  CHECK(mpz_cmp(IntView(exact_mul(a, exact_negate(b))), want) == 0);
  // powers: odd and even bases of both signs, the factors of 2 shifted in
  for (int64_t base : {3, -3, 12, -12, 1024}) {
    uint64_t e = 3000001;
    Mpz p;
    mpz_set_si(p, base);
    mpz_pow_ui(p, p, e);
    Value got = eval_string("(expt " + std::to_string(base) + " " + std::to_string(e) + ")", "exact-test");
    CHECK(mpz_cmp(IntView(got), p) == 0);
  }
}

TEST_CASE("Ctrl-C stops huge exact arithmetic, which still works after", "[exact]") {
  gc_init();
  Value a = pow2_plus(kExactWorkerBits + 1, 1);
  g_interrupt = 1;
  CHECK_THROWS_AS(eval_string("(expt 3 100000000)", "exact-test"), InterruptThrow);
  CHECK(g_interrupt == 0);
  for (int i = 0; i < 20; i++) {  // more than the pinning slots: finished workers free theirs
    g_interrupt = 1;
    CHECK_THROWS_AS(exact_mul(a, a), InterruptThrow);
  }
  Value b = exact_add(pow2_plus(kExactWorkerBits, 0), make_int(1));
  CHECK(exact_integer_bits(b) == kExactWorkerBits + 1);
  CHECK(exact_size_text(b) == "#<an integer of " + std::to_string(kExactWorkerBits + 1) + " bits>");
  CHECK(exact_digits_exceed(b, 1000));
  CHECK_FALSE(exact_digits_exceed(make_int(123), 1));
  CHECK_FALSE(exact_digits_exceed(pow2_plus(332, 0), 99));  // 10^100 > 2^332: 101 digits
  CHECK(exact_digits_exceed(pow2_plus(340, 0), 95));
}

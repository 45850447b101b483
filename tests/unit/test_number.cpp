// Unit tests for runtime/number.h: the fixnum/bignum boundary, exact results
// past the int64 limits, division and comparison rules, number parsing and
// printing, and the SplitMix64 generator.
#include <catch2/catch.hpp>
#include <climits>
#include <cmath>

#include "runtime/complex.h"
#include "runtime/error.h"
#include "runtime/exact.h"
#include "runtime/number.h"
#include "stdlib/builtins.h"

using namespace kiln;

template <class F> static std::string error_of(F f) {
  try {
    f();
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "<no error>";
}

TEST_CASE("make_int and int_of round-trip across the fixnum boundary", "[number]") {
  gc_init();
  const int64_t limit = int64_t(1) << 49;
  for (int64_t n : {limit - 2, limit - 1, limit, limit + 1, -limit - 1, -limit, -limit + 1, int64_t(0),
                    int64_t(INT64_MAX), int64_t(INT64_MIN)}) {
    Value v = make_int(n);
    CHECK(is_int(v));
    CHECK(int_of(v) == n);
    CHECK(is_fixnum(v) == (n >= -limit && n < limit));
    CHECK(has_type(v, T_BIGNUM) == !(n >= -limit && n < limit));
  }
  // Adding across the boundary makes a bignum, subtracting back a fixnum.
  Value top = make_int(limit - 1);
  Value boxed = num_add(top, make_int(1));
  CHECK(has_type(boxed, T_BIGNUM));
  CHECK(int_of(boxed) == limit);
  Value back = num_sub(boxed, make_int(1));
  CHECK(is_fixnum(back));
  CHECK(int_of(back) == limit - 1);
  CHECK(int_of(num_sub(make_int(-limit), make_int(1))) == -limit - 1);
}

static std::string text_of(Value v) { return exact_to_string(v, 10); }

TEST_CASE("exact results past the int64 limits are bignums", "[number]") {
  gc_init();
  Value max = make_int(INT64_MAX), min = make_int(INT64_MIN);
  CHECK(text_of(num_add(max, make_int(1))) == "9223372036854775808");
  CHECK(text_of(num_sub(min, make_int(1))) == "-9223372036854775809");
  CHECK(text_of(num_negate(min)) == "9223372036854775808");
  CHECK(int_of(num_negate(max)) == -INT64_MAX);
  // Both operands fixnums: the inline path's overflow check hands over to the bignum path.
  CHECK(int_of(num_mul(make_int(int64_t(1) << 31), make_int(int64_t(1) << 31))) == int64_t(1) << 62);
  CHECK(text_of(num_mul(make_int(int64_t(1) << 32), make_int(int64_t(1) << 32))) == "18446744073709551616");
  CHECK(text_of(num_mul(min, make_int(-1))) == "9223372036854775808");
  CHECK(text_of(num_div(min, make_int(-1))) == "9223372036854775808");
  CHECK(text_of(num_div(make_int(6), make_int(4))) == "3/2");
  CHECK(text_of(num_div(make_int(-6), make_int(-3))) == "2");
  CHECK(text_of(num_div(make_int(3), make_int(-6))) == "-1/2");
  CHECK(error_of([] { num_div(make_int(1), make_int(0)); }) == "division by zero");
  // A bignum result that comes back into the fixnum range is a fixnum again.
  Value big = num_add(max, max);
  CHECK(is_fixnum(num_sub(big, big)));
  CHECK(floor_remainder(INT64_MIN, -1) == 0);
  CHECK(floor_quotient(-6, 3) == -2);
}

TEST_CASE("comparisons between integers and floats are exact", "[number]") {
  gc_init();
  const int64_t two53 = int64_t(1) << 53;
  // 2^53 + 1 is not representable as a double; 2^53 as a double must not equal it.
  CHECK_FALSE(num_eq(make_int(two53 + 1), make_double(double(two53))));
  CHECK(num_lt(make_double(double(two53)), make_int(two53 + 1)));
  CHECK(num_eq(make_int(two53), make_double(double(two53))));
  CHECK(compare_int_double(INT64_MAX, 0x1p63) == -1);
  CHECK(compare_int_double(INT64_MIN, -0x1p63) == 0);
  CHECK(compare_int_double(0, -0.0) == 0);
  CHECK(num_lt(make_int(1), make_double(1.5)));
  CHECK_FALSE(num_lt(make_double(NAN), make_int(1)));
  CHECK_FALSE(num_eq(make_double(NAN), make_double(NAN)));
  CHECK(num_eq(make_int(3), make_int(3)));
  CHECK(num_lt(make_int(-(int64_t(1) << 60)), make_int(5)));
}

TEST_CASE("exact_of_double gives the rational equal to a finite float", "[number]") {
  gc_init();
  CHECK(text_of(exact_of_double("exact", 1, 3.0)) == "3");
  CHECK(text_of(exact_of_double("exact", 1, -0x1p63)) == "-9223372036854775808");
  CHECK(text_of(exact_of_double("exact", 1, 2.5)) == "5/2");
  CHECK(text_of(exact_of_double("exact", 1, 0.1)) == "3602879701896397/36028797018963968");
  CHECK(text_of(exact_of_double("exact", 1, 0x1p64)) == "18446744073709551616");
  CHECK(text_of(exact_of_double("exact", 1, -0.0)) == "0");
  CHECK(error_of([] { exact_of_double("exact", 1, HUGE_VAL); }) ==
        "exact: argument 1 must be a finite number, got +inf.0");
  CHECK(error_of([] { exact_of_double("exact", 1, NAN); }) ==
        "exact: argument 1 must be a finite number, got +nan.0");
}

TEST_CASE("int_to_string and parse_number", "[number]") {
  gc_init();
  CHECK(int_to_string(255, 16) == "ff");
  CHECK(int_to_string(-255, 2) == "-11111111");
  CHECK(int_to_string(INT64_MIN, 10) == "-9223372036854775808");
  CHECK(int_to_string(0, 36) == "0");
  CHECK(int_of(parse_number("-9223372036854775808", 10)) == INT64_MIN);
  CHECK(text_of(parse_number("9223372036854775808", 10)) == "9223372036854775808");
  CHECK(text_of(parse_number("-6/4", 10)) == "-3/2");
  CHECK(text_of(parse_number("#x10/2", 10)) == "8");
  CHECK(text_of(parse_number("#e1.25e2", 10)) == "125");
  CHECK(text_of(parse_number("#e-.5", 10)) == "-1/2");
  CHECK(text_of(parse_number("#E1E-2", 10)) == "1/100");
  CHECK(double_of(parse_number("#i1/3", 10)) == 1.0 / 3.0);
  CHECK(double_of(parse_number("#x#I1/10", 10)) == 0.0625);
  CHECK(double_of(parse_number("+InF.0", 10)) == HUGE_VAL);
  CHECK(double_of(parse_number("1E2", 10)) == 100.0);
  std::string refused;
  // Complex syntax makes complex numbers (complex.h), or reals for an exact zero imaginary part.
  for (const char *complex : {"1+2i", "+i", "-2.5i", "1@2", "+inf.0-inf.0i", "1e2+1.0i", "1/2+3/4i"}) {
    refused.clear();
    CHECK(is_compnum(parse_number(complex, 10, &refused)));
    CHECK(refused.empty());
  }
  CHECK(parse_number("3+0i", 10) == make_fixnum(3));
  CHECK(parse_number("1@0", 10) == make_fixnum(1));
  CHECK(imag_part(parse_number("-i", 10)) == make_fixnum(-1));
  CHECK(double_of(imag_part(parse_number("#i1+i", 10))) == 1.0);
  CHECK(real_part(parse_number("10+11i", 16)) == make_fixnum(16));
  refused.clear();
  CHECK(parse_number("1/0", 10, &refused) == NOVALUE);
  CHECK(refused == "division by zero in 1/0");
  refused.clear();
  CHECK(parse_number("hi", 10, &refused) == NOVALUE);  // a symbol that ends in i
  CHECK(refused.empty());
  CHECK(int_of(parse_number("ff", 16)) == 255);
  CHECK(int_of(parse_number("#xFF", 10)) == 255);
  CHECK(int_of(parse_number("#b-101", 10)) == -5);
  CHECK(double_of(parse_number("1e3", 10)) == 1000.0);
  CHECK(double_of(parse_number(".5", 10)) == 0.5);
  CHECK(double_of(parse_number("-2.", 10)) == -2.0);
  CHECK(std::isnan(double_of(parse_number("+nan.0", 10))));
  CHECK(double_of(parse_number("-inf.0", 10)) == -HUGE_VAL);
  CHECK(int_of(parse_number("#e2.0", 10)) == 2);
  CHECK(double_of(parse_number("#i7", 10)) == 7.0);
  for (const char *bad :
       {"",    "+",   "-",   ".",   "1e",    "e3",    "abc", "1.5.2", " 1",    "1 ",       "0x10",
        "inf", "nan", "1.5", "#q1", "#x#x1", "#e#i1", "1/",  "/2",    "1/2/3", "#e+inf.0", "1.5/2"}) {
    int radix = std::string(bad) == "1.5" ? 16 : 10;
    CHECK(parse_number(bad, radix) == NOVALUE);
  }
}

TEST_CASE("SplitMix64 is deterministic and in range", "[number][random]") {
  SplitMix64 a(42), b(42);
  for (int i = 0; i < 100; i++) CHECK(a.next() == b.next());
  // Reference value of SplitMix64 seeded with 0 (first output).
  SplitMix64 z(0);
  CHECK(z.next() == 0xE220A8397B1DCDAFull);
  SplitMix64 r(7);
  for (int i = 0; i < 1000; i++) {
    double d = r.next_double();
    CHECK(d >= 0.0);
    CHECK(d < 1.0);
    CHECK(r.below(10) < 10);
  }
  CHECK(r.below(1) == 0);
}

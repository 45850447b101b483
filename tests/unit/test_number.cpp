// Unit tests for runtime/number.h: fixnum/boxed boundary, overflow detection at
// the int64 limits, division and comparison rules, number parsing and printing,
// and the SplitMix64 generator.
#include <catch2/catch.hpp>
#include <climits>
#include <cmath>

#include "runtime/error.h"
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
    CHECK(has_type(v, T_INT64) == !(n >= -limit && n < limit));
  }
  // Adding across the boundary boxes, subtracting back unboxes.
  Value top = make_int(limit - 1);
  Value boxed = num_add(top, make_int(1));
  CHECK(has_type(boxed, T_INT64));
  CHECK(int_of(boxed) == limit);
  Value back = num_sub(boxed, make_int(1));
  CHECK(is_fixnum(back));
  CHECK(int_of(back) == limit - 1);
  CHECK(int_of(num_sub(make_int(-limit), make_int(1))) == -limit - 1);
}

TEST_CASE("overflow is detected exactly at the int64 limits", "[number]") {
  gc_init();
  Value max = make_int(INT64_MAX), min = make_int(INT64_MIN);
  CHECK(int_of(num_add(make_int(INT64_MAX - 1), make_int(1))) == INT64_MAX);
  CHECK(error_of([&] { num_add(max, make_int(1)); }) == "integer overflow in +");
  CHECK(int_of(num_sub(make_int(INT64_MIN + 1), make_int(1))) == INT64_MIN);
  CHECK(error_of([&] { num_sub(min, make_int(1)); }) == "integer overflow in -");
  CHECK(error_of([&] { num_negate(min); }) == "integer overflow in -");
  CHECK(int_of(num_negate(max)) == -INT64_MAX);
  // 2^31 * 2^31 fits, 2^32 * 2^32 does not; both operands are fixnums.
  CHECK(int_of(num_mul(make_int(int64_t(1) << 31), make_int(int64_t(1) << 31))) == int64_t(1) << 62);
  CHECK(error_of([&] { num_mul(make_int(int64_t(1) << 32), make_int(int64_t(1) << 32)); }) ==
        "integer overflow in *");
  CHECK(int_of(num_mul(make_int(-(int64_t(1) << 31)), make_int(int64_t(1) << 32))) == INT64_MIN);
  CHECK(error_of([&] { num_mul(min, make_int(-1)); }) == "integer overflow in *");
  CHECK(error_of([&] { num_div(min, make_int(-1)); }) == "integer overflow in /");
}

TEST_CASE("division: exact when divisible, float otherwise, errors on integer zero", "[number]") {
  gc_init();
  Value q = num_div(make_int(6), make_int(3));
  CHECK(is_fixnum(q));
  CHECK(int_of(q) == 2);
  Value h = num_div(make_int(7), make_int(2));
  REQUIRE(is_double(h));
  CHECK(double_of(h) == 3.5);
  CHECK(int_of(num_div(make_int(-6), make_int(-1))) == 6);
  CHECK(error_of([] { num_div(make_int(1), make_int(0)); }) == "division by zero");
  CHECK(error_of([] { num_div(make_int(0), make_int(0)); }) == "division by zero");
  CHECK(double_of(num_div(make_double(1.0), make_int(0))) == HUGE_VAL);
  CHECK(double_of(num_div(make_int(-1), make_double(0.0))) == -HUGE_VAL);
  CHECK(std::isnan(double_of(num_div(make_double(0.0), make_int(0)))));
}

TEST_CASE("mixed operands promote to float, non-numbers raise positional type errors", "[number]") {
  gc_init();
  Value r = num_add(make_int(1), make_double(0.5));
  REQUIRE(is_double(r));
  CHECK(double_of(r) == 1.5);
  CHECK(is_double(num_mul(make_int(2), make_double(2.0))));
  CHECK(error_of([] { num_add(make_int(1), make_string("a")); }) ==
        "+: argument 2 must be a number, got \"a\"");
  CHECK(error_of([] { num_sub(NIL, make_int(1)); }) == "-: argument 1 must be a number, got ()");
  CHECK(std::signbit(double_of(num_negate(make_double(0.0)))));
}

TEST_CASE("floor and truncate division families follow R7RS signs", "[number]") {
  CHECK(floor_quotient(7, 2) == 3);
  CHECK(floor_quotient(-7, 2) == -4);
  CHECK(floor_quotient(7, -2) == -4);
  CHECK(floor_quotient(-7, -2) == 3);
  CHECK(floor_remainder(7, 2) == 1);
  CHECK(floor_remainder(-7, 2) == 1);
  CHECK(floor_remainder(7, -2) == -1);
  CHECK(floor_remainder(-7, -2) == -1);
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

TEST_CASE("exact_of_double accepts only integral floats in range", "[number]") {
  gc_init();
  CHECK(exact_of_double("exact", 1, 3.0) == 3);
  CHECK(exact_of_double("exact", 1, -0x1p63) == INT64_MIN);
  CHECK(error_of([] { exact_of_double("exact", 1, 2.5); }) ==
        "exact: argument 1 must be an integral float, got 2.5");
  CHECK(error_of([] { exact_of_double("exact", 1, 0x1p63); }) == "integer overflow in exact");
  CHECK(error_of([] { exact_of_double("exact", 1, NAN); }) ==
        "exact: argument 1 must be an integral float, got +nan.0");
}

TEST_CASE("int_to_string and parse_number", "[number]") {
  gc_init();
  CHECK(int_to_string(255, 16) == "ff");
  CHECK(int_to_string(-255, 2) == "-11111111");
  CHECK(int_to_string(INT64_MIN, 10) == "-9223372036854775808");
  CHECK(int_to_string(0, 36) == "0");
  CHECK(int_of(parse_number("-9223372036854775808", 10)) == INT64_MIN);
  CHECK(parse_number("9223372036854775808", 10) == NOVALUE);
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
  for (const char *bad : {"", "+", "-", ".", "1e", "e3", "abc", "1.5.2", " 1", "1 ", "0x10", "inf", "nan",
                          "#e2.5", "1.5", "#q1"}) {
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

// number.h — arithmetic on Kiln numbers (docs/language.md) and the portable random generator.
//
// Invariant: a real number is exact (a fixnum, a Bignum or a Ratnum, normalised
// as runtime/exact.h says) or an IEEE double; a complex one is a Compnum
// (runtime/complex.h), which only the slow paths look at. Exact arithmetic never wraps or
// rounds: results grow into bignums and rationals (up to exact.h's bit limit),
// and exact division by zero raises "division by zero". Any float operand makes
// the result a float. The inline functions handle fixnum/fixnum and
// double/double operands without a call; every other combination (bignums,
// rationals, mixed operands, non-numbers) goes to the *_slow functions, which
// also route values whose type has an arithmetic hook (TypeHooks::arith:
// tensors, symbolic values) to it before raising a type error.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/object.h"

namespace kiln {

// Both operands are fixnums: one AND and one compare instead of two of each
// (a fixnum has all of its top 14 bits set, so the AND keeps them only when
// both words have them).
inline bool both_fixnums(Value a, Value b) { return is_fixnum(mk(a.bits & b.bits)); }
inline bool both_doubles(Value a, Value b) { return is_double(a) && is_double(b); }

// ---- binary operations as the evaluator and the builtins use them ----------
// Error positions are 1 (a) and 2 (b) and the operation name is the builtin's.
Value num_add_slow(Value a, Value b);
Value num_sub_slow(Value a, Value b);
Value num_mul_slow(Value a, Value b);
Value num_div(Value a, Value b);  // "/" per docs/language.md: exact when the quotient is an integer

inline Value num_add(Value a, Value b) {
  // Two fixnums (|n| < 2^49) cannot overflow int64 when added.
  if (both_fixnums(a, b)) [[likely]]
    return make_int(fixnum_of(a) + fixnum_of(b));
  if (both_doubles(a, b)) return make_double(double_of(a) + double_of(b));
  return num_add_slow(a, b);
}
inline Value num_sub(Value a, Value b) {
  if (both_fixnums(a, b)) [[likely]]
    return make_int(fixnum_of(a) - fixnum_of(b));
  if (both_doubles(a, b)) return make_double(double_of(a) - double_of(b));
  return num_sub_slow(a, b);
}
inline Value num_mul(Value a, Value b) {
  int64_t r;
  if (both_fixnums(a, b) && !__builtin_mul_overflow(fixnum_of(a), fixnum_of(b), &r)) [[likely]]
    return make_int(r);
  if (both_doubles(a, b)) return make_double(double_of(a) * double_of(b));
  return num_mul_slow(a, b);
}

// Comparisons. Integers and floats compare by exact value (so = stays
// transitive even beyond 2^53); any comparison with NaN is false.
enum class Cmp { LT, LE, GT, GE, EQ };
bool num_compare_slow(Cmp op, const char *who, Value a, Value b);
inline bool num_lt(Value a, Value b) {
  if (both_fixnums(a, b)) [[likely]]
    return fixnum_of(a) < fixnum_of(b);
  return num_compare_slow(Cmp::LT, "<", a, b);
}
inline bool num_eq(Value a, Value b) {
  if (both_fixnums(a, b)) [[likely]]
    return a == b;
  return num_compare_slow(Cmp::EQ, "=", a, b);
}
// Three-way exact comparison of two numbers that are not NaN: -1, 0 or 1.
int compare_int_double(int64_t i, double d);

// ---- helpers shared by the numeric builtins --------------------------------
// Called when argv[pos0] (0-based) is not a number: returns the arithmetic hook's
// result when some argument's type has one (the highest arith_rank) and it
// handles the call, otherwise raises "WHO: argument POS must be a number, got V".
Value not_a_number(const char *who, int argc, Value *argv, int pos0);
[[noreturn]] void division_by_zero();  // "division by zero"

Value num_negate(Value a);  // (- a), keeping -0.0 for 0.0

// R7RS integer division families on int64 (b != 0; callers check).
int64_t floor_quotient(int64_t a, int64_t b);
int64_t floor_remainder(int64_t a, int64_t b);  // sign of b (modulo)

// The exact rational equal to a finite float; raises
// "WHO: argument POS must be a finite number, got V" for infinities and NaN.
Value exact_of_double(const char *who, int pos, double d);

// Text of an integer in RADIX 2..36 (lower-case digits, leading '-').
std::string int_to_string(int64_t n, int radix);
// Parses a whole number literal (the forms docs/language.md lists: integers of
// any size, n/d, decimals, #x #o #b #d #e #i prefixes, +inf.0 -inf.0 +nan.0, all
// case-insensitive, and complex numbers a+bi, +i, r@theta, with 3+0i read as 3)
// in RADIX; NOVALUE when the text is not a number. When the text is number
// syntax Kiln refuses (an exact n/0), also sets *refused (if given) to the
// reason, which the reader reports.
Value parse_number(std::string_view text, int radix, std::string *refused = nullptr);

// ---- random numbers ---------------------------------------------------------
// SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of xoshiro):
// a 64-bit state advanced by a Weyl increment and scrambled by a bijective
// mixer. Tiny, passes BigCrush, and gives the same sequence on every platform
// for the same seed. Not cryptographic.
struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed = 0x853C49E6748FEA9Bull) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1): the top 53 bits as a fraction.
  double next_double() { return double(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) for n > 0, without modulo bias (rejection sampling).
  uint64_t below(uint64_t n) {
    uint64_t limit = -n % n;  // 2^64 mod n: values below it are the biased tail
    uint64_t x;
    do x = next();
    while (x < limit);
    return x % n;
  }
};
// The generator behind Lisp's `random`; fixed default seed, so a program that
// never calls random-seed! sees the same numbers on every run.
extern SplitMix64 g_lisp_random;

}  // namespace kiln

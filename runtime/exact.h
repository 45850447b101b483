// exact.h — exact integers of any size and exact rationals, through GMP.
//
// Invariant: exact numbers are always normalised (object.h): an integer in the
// fixnum range is a fixnum, any other integer a Bignum; a Ratnum has den > 1 and
// gcd(num, den) = 1, anything else is an integer. GMP's working values (Mpz, Mpq)
// live in malloc memory owned by RAII wrappers and are copied into fresh GC blocks
// when they become Values, so no GC object ever points into malloc memory and GMP
// keeps its default allocator: libgccjit (which links GMP itself) and worker
// threads never meet the collector through it. Views (IntView, RatView) read a
// Value's limbs in place, without allocating; they must not outlive the Value.
// No exact result may exceed kMaxExactBits: past that, "out of memory".
#pragma once
#include <gmp.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/object.h"

namespace kiln {

constexpr uint64_t kMaxExactBits = 1ull << 31;

// Raises "out of memory: ..." when an exact result would have more than
// kMaxExactBits bits (checked before GMP is asked to allocate it).
void check_exact_bits(uint64_t bits);

struct Mpz {
  mpz_t z;
  Mpz() { mpz_init(z); }
  ~Mpz() { mpz_clear(z); }
  Mpz(const Mpz &) = delete;
  Mpz &operator=(const Mpz &) = delete;
  operator mpz_ptr() { return z; }
  operator mpz_srcptr() const { return z; }
};
struct Mpq {
  mpq_t q;
  Mpq() { mpq_init(q); }
  ~Mpq() { mpq_clear(q); }
  Mpq(const Mpq &) = delete;
  Mpq &operator=(const Mpq &) = delete;
  operator mpq_ptr() { return q; }
  operator mpq_srcptr() const { return q; }
};

// Read-only mpz view of an exact integer Value (fixnum or bignum).
class IntView {
 public:
  explicit IntView(Value v);
  IntView(const IntView &) = delete;
  IntView &operator=(const IntView &) = delete;
  operator mpz_srcptr() const { return z_; }

 private:
  mp_limb_t small_;
  mpz_t z_;
};

// Read-only mpq view of any exact Value (integer or ratnum).
class RatView {
 public:
  explicit RatView(Value v);
  RatView(const RatView &) = delete;
  RatView &operator=(const RatView &) = delete;
  operator mpq_srcptr() const { return q_; }

 private:
  mp_limb_t num_small_, den_small_;
  mpq_t q_;
};

// Normalised Values of GMP results (an mpq must be canonical).
Value value_of_mpz(mpz_srcptr z);
Value value_of_mpq(mpq_srcptr q);
Value value_of_int128(__int128 n);
// num/den for exact integers num, den (den != 0), reduced to lowest terms.
Value make_ratio(Value num, Value den);
inline Value ratnum_num(Value v) { return as<Ratnum>(v)->num; }
inline Value ratnum_den(Value v) { return as<Ratnum>(v)->den; }

// Bits of the magnitude of an exact integer (0 for 0).
uint64_t exact_integer_bits(Value v);
int exact_sign(Value v);                      // -1, 0, 1
int compare_exact(Value a, Value b);          // three-way, both exact
int compare_exact_double(Value a, double d);  // three-way, d not NaN

// Exact arithmetic (both operands exact; exact_div's divisor non-zero).
Value exact_add(Value a, Value b);
Value exact_sub(Value a, Value b);
Value exact_mul(Value a, Value b);
Value exact_div(Value a, Value b);
Value exact_negate(Value a);

// Correct rounding to the nearest double (ties to even) of the real number
// (q + f) * 2^exp2, where q >= 0 and 0 <= f < 1, f > 0 exactly when `sticky`;
// +inf.0 past the double range, subnormals rounded once.
double round_scaled_to_double(mpz_srcptr q, bool sticky, int64_t exp2);
double mpq_to_double(mpq_srcptr q);         // correctly rounded
double exact_sqrt_to_double(mpq_srcptr q);  // q >= 0; sqrt correctly rounded
double exact_log(Value v);                  // v > 0; no overflow for huge v
Value exact_of_finite_double(double d);     // the rational equal to d
// Text of an exact number in RADIX 2..36 (lower-case digits, "n/d" for ratnums).
// A big integer's digits may take minutes (a 2^31-bit one in base 10); while
// they are made, Ctrl-C raises `interrupted` unless `interruptible` is false
// (callers that cannot take an error there: the printer inside error reports).
std::string exact_to_string(Value v, int radix, bool interruptible = true);
// Whether v's base-10 text would be longer than `chars` (an estimate from its
// bits that never says no wrongly by more than a few digits).
bool exact_digits_exceed(Value v, size_t chars);
// "#<an integer of N bits>" or "#<a rational of N/M bits>": how an error
// message shows an exact number too long to write out (printer.cpp).
std::string exact_size_text(Value v);
// An exact integer from digits in RADIX (text already checked), with a sign.
Value exact_integer_from_digits(std::string_view digits, int radix, bool negative);

}  // namespace kiln

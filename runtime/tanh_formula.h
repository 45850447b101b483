// tanh_formula.h — Kiln's own tanh, the one `tensor-tanh` uses on every path.
//
// Why not the C library's: a libm call cannot be vectorised, and tanh dominated
// tanh networks (a third of a deep MLP's gradient, in the interpreter and in the
// compiled kernel alike). This formula is straight-line arithmetic, so the eager
// loops (tensor_ops_simd.inc) and compiled kernels (kernel_emitter.cpp) both run it
// on whole vectors, and it does not depend on which libm the machine has.
//
// Invariants:
//   * Only +, -, *, / on doubles and integer operations on their bit patterns: no
//     library call, no branch, no fused multiply-add (everything is compiled with
//     -ffp-contract=off). The clamp and the NaN test work on bit patterns, which
//     order like the numbers for non-negative doubles.
//   * tanh_steps() below is the definition, a template over the number kit:
//     tanh_formula (double), vtanh in tensor_ops_simd.inc (a vector of doubles)
//     and Emitter::tanh_steps in kernel_emitter.cpp (libgccjit values) are its
//     instantiations, so all paths agree to the bit by construction
//     (tests/unit/test_tensor_ops.cpp and test_jit.cpp check it).
//
// Method: tanh|x| = e / (e + 2) with e = expm1(2|x|). Write 2|x| = k ln2 + r with
// k the nearest integer (|r| <= ln2/2, ln2 split in two so k*hi is exact); then
// e = 2^k expm1(r) + (2^k - 1), expm1(r) from its Taylor series up to r^13 (the
// first term left out is below 0.1 ulp), evaluated by Estrin's scheme (expm1_tail):
// its dependency chain is 5 multiply-add steps deep where Horner's is 12, and
// latency, not the number of operations, is what bounds a vector loop of tanh.
// |x| is clamped to 20 first, where tanh already rounds to 1. The sign is put
// back on the bit pattern, so tanh(-0) = -0, and a NaN comes back unchanged.
//
// Accuracy: within 2.6 ulp of the exact value over the whole double range; the
// worst of 30 million samples is 2.54 ulp near |x| = 0.21, where e = 2 expm1(r) + 1
// cancels (glibc's tanh: 2.19 on the same samples; Horner's scheme here: 2.51).
// docs/tensors.md.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

namespace kiln::tanh_formula {

constexpr double kClamp = 20.0;
constexpr double kInvLn2 = 0x1.71547652b82fep0;
// Adding 1.5 * 2^52 rounds to an integer and leaves it in the low mantissa bits.
constexpr double kShift = 0x1.8p52;
constexpr double kLn2Hi = 0x1.62e42fee00000p-1;
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
constexpr int kTerms = 12;
// 1/2!, 1/3!, ..., 1/13!: the Taylor coefficients of (expm1(r) - r) / r^2.
constexpr double kCoef[kTerms] = {1.0 / 2,       1.0 / 6,        1.0 / 24,        1.0 / 120,
                                  1.0 / 720,     1.0 / 5040,     1.0 / 40320,     1.0 / 362880,
                                  1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800};

constexpr int64_t kSignMask = INT64_MIN;
constexpr int64_t kAbsMask = INT64_MAX;
constexpr int64_t kClampBits = std::bit_cast<int64_t>(kClamp);
constexpr int64_t kInfBits = 0x7ff0000000000000;
constexpr int64_t kShiftBits = std::bit_cast<int64_t>(kShift);
constexpr int64_t kExponentBias = 1023;

// (expm1(r) - r) / r^2 = sum of kCoef[i] r^i, as pairs c[2j] + c[2j+1] r combined
// with r^2, r^4 and r^8. D is any kit's floating type; the order of every
// operation is fixed here.
// Always inlined: the SIMD loops instantiate it for vector types inside functions
// compiled for AVX2 or AVX-512, and an out-of-line copy would not be. Vectors
// go by reference, because passing one by value depends on those target options.
template <class D> inline __attribute__((always_inline)) void expm1_tail(const D &r, const D &r2, D &out) {
  D r4 = r2 * r2;
  D r8 = r4 * r4;
  D q0 = kCoef[0] + kCoef[1] * r, q1 = kCoef[2] + kCoef[3] * r, q2 = kCoef[4] + kCoef[5] * r;
  D q3 = kCoef[6] + kCoef[7] * r, q4 = kCoef[8] + kCoef[9] * r, q5 = kCoef[10] + kCoef[11] * r;
  D s0 = q0 + q1 * r2, s1 = q2 + q3 * r2, s2 = q4 + q5 * r2;
  out = (s0 + s1 * r4) + s2 * r8;
}
static_assert(kTerms == 12, "expm1_tail pairs exactly twelve coefficients");

// The number kit a formula runs on (K below): K::D the floating type (double, a
// vector of doubles, the emitter's JitValue), K::I the integer type of the same
// width holding the bit patterns, K::bits / K::real the bit casts between them,
// K::negative_mask(v) all ones where v < 0, else 0 (a logical shift: AVX2 has no
// 64-bit arithmetic one). Everything else is C++'s operators, which each kit's
// types have. Results go out by reference: returning a vector by value would
// depend on target options, and the vector kits (tensor_ops_dispatch.cpp) are
// defined outside the target regions so that a template here may call them.
struct ScalarKit {
  using D = double;
  using I = int64_t;
  static inline __attribute__((always_inline)) void bits(const D &x, I &out) {
    out = std::bit_cast<int64_t>(x);
  }
  static inline __attribute__((always_inline)) void real(const I &i, D &out) {
    out = std::bit_cast<double>(i);
  }
  static inline __attribute__((always_inline)) void negative_mask(const I &v, I &out) {
    out = -int64_t(uint64_t(v) >> 63);
  }
  // The rest of the kit elementwise_formulas.h's formulas use.
  using M = bool;
  static inline D exp(D x) { return std::exp(x); }
  static inline D log(D x) { return std::log(x); }
  static inline D log1p(D x) { return std::log1p(x); }
  static inline D sin(D x) { return std::sin(x); }
  static inline D cos(D x) { return std::cos(x); }
  static inline D tan(D x) { return std::tan(x); }
  static inline D pow(D x, D y) { return std::pow(x, y); }
  static inline __attribute__((always_inline)) D sqrt(D x) { return __builtin_sqrt(x); }
  static inline __attribute__((always_inline)) D fabs(D x) { return __builtin_fabs(x); }
  static inline __attribute__((always_inline)) M lt(D a, D b) { return a < b; }
  static inline __attribute__((always_inline)) M le(D a, D b) { return a <= b; }
  static inline __attribute__((always_inline)) M gt(D a, D b) { return a > b; }
  static inline __attribute__((always_inline)) M ge(D a, D b) { return a >= b; }
  static inline __attribute__((always_inline)) M eq(D a, D b) { return a == b; }
  static inline __attribute__((always_inline)) M ne(D a, D b) { return a != b; }
  static inline __attribute__((always_inline)) M lor(M a, M b) { return a || b; }
  static inline __attribute__((always_inline)) D select(M c, D a, D b) { return c ? a : b; }
  static inline __attribute__((always_inline)) D lit(D, double k) { return k; }
};

// THE tanh: every path instantiates this one template (tanh_formula below on
// double, vtanh in tensor_ops_simd.inc on a vector, Emitter::tanh_steps in
// kernel_emitter.cpp on JitValue), so they agree to the bit by construction.
template <class K>
inline __attribute__((always_inline)) void tanh_steps(const typename K::D &x, typename K::D &out) {
  using D = typename K::D;
  using I = typename K::I;
  I xb, dneg, nan;
  K::bits(x, xb);
  I ab = xb & kAbsMask;
  I d = ab - kClampBits;
  K::negative_mask(d, dneg);
  I cb = kClampBits + (d & dneg);        // min(|x|, 20), NaN -> 20
  K::negative_mask(kInfBits - ab, nan);  // all ones when x is a NaN
  D y, m, s, result;
  K::real(cb, y);
  y = 2.0 * y;
  m = y * kInvLn2 + kShift;
  D k = m - kShift;
  D r = (y - k * kLn2Hi) - k * kLn2Lo;
  D r2 = r * r, tail = r;
  expm1_tail(r, r2, tail);
  D p = r + r2 * tail;
  I mb, tb;
  K::bits(m, mb);
  K::real(((mb - kShiftBits) + kExponentBias) << 52, s);
  D e = s * p + (s - 1.0);
  D t = e / (e + 2.0);
  K::bits(t, tb);
  tb = tb | (xb & kSignMask);
  K::real((tb & ~nan) | (xb & nan), result);
  out = result;
}

inline double tanh_formula(double x) {
  double r;
  tanh_steps<ScalarKit>(x, r);
  return r;
}

}  // namespace kiln::tanh_formula

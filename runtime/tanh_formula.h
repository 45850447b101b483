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
//   * tanh_formula() below is the definition. vtanh in tensor_ops_simd.inc and
//     Emitter::tanh_steps in kernel_emitter.cpp repeat its steps one for one, in
//     the same order, so all paths agree to the bit
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
// with r^2, r^4 and r^8. D is double or a vector of doubles; the order of every
// operation is fixed here and repeated by Emitter::tanh_steps.
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

// All ones when v < 0, else 0 (a logical shift: AVX2 has no 64-bit arithmetic one).
constexpr int64_t negative_mask(int64_t v) { return -int64_t(uint64_t(v) >> 63); }

inline double tanh_formula(double x) {
  int64_t xb = std::bit_cast<int64_t>(x);
  int64_t ab = xb & kAbsMask;
  int64_t d = ab - kClampBits;
  int64_t cb = kClampBits + (d & negative_mask(d));  // min(|x|, 20), NaN -> 20
  int64_t nan = negative_mask(kInfBits - ab);        // all ones when x is a NaN
  double y = 2.0 * std::bit_cast<double>(cb);
  double m = y * kInvLn2 + kShift;
  double k = m - kShift;
  double r = (y - k * kLn2Hi) - k * kLn2Lo;
  double r2 = r * r, tail;
  expm1_tail(r, r2, tail);
  double p = r + r2 * tail;
  double s = std::bit_cast<double>(((std::bit_cast<int64_t>(m) - kShiftBits) + kExponentBias) << 52);
  double e = s * p + (s - 1.0);
  double t = e / (e + 2.0);
  int64_t tb = std::bit_cast<int64_t>(t) | (xb & kSignMask);
  return std::bit_cast<double>((tb & ~nan) | (xb & nan));
}

}  // namespace kiln::tanh_formula

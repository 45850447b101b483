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
// first term left out is below 0.1 ulp). |x| is clamped to 20 first, where tanh
// already rounds to 1. The sign is put back on the bit pattern, so tanh(-0) = -0,
// and a NaN comes back unchanged.
//
// Accuracy: within 2.5 ulp of the exact value over the whole double range (glibc's
// tanh: 2.1 by the same measure); docs/tensors.md.
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
  double p = kCoef[kTerms - 1];
  for (int i = kTerms - 2; i >= 0; i--) p = p * r + kCoef[i];
  p = r + (r * r) * p;
  double s = std::bit_cast<double>(((std::bit_cast<int64_t>(m) - kShiftBits) + kExponentBias) << 52);
  double e = s * p + (s - 1.0);
  double t = e / (e + 2.0);
  int64_t tb = std::bit_cast<int64_t>(t) | (xb & kSignMask);
  return std::bit_cast<double>((tb & ~nan) | (xb & nan));
}

}  // namespace kiln::tanh_formula

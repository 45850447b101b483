// gelu_formula.h — `tensor-gelu`, PyTorch's gelu(approximate='tanh') with Kiln's
// own tanh (tanh_formula.h), written once for every path.
//
// Invariant: inner() and outer() below are the only statement of the formula,
// gelu(x) = outer(x, tanh(inner(x))). apply_unary (tensor_ops.cpp) instantiates
// them on double, the vector loop (tensor_ops_simd.inc) on a vector of doubles,
// and the kernel emitter (kernel_emitter.cpp) on its libgccjit value type; each
// applies its own tanh in between (tanh_formula, vtanh, tanh_steps). The tanh is
// not called from a template here because the vector loops are compiled with
// per-path target options that a function defined outside them does not carry.
// The order of operations is fixed by the expressions, as PyTorch writes them:
//   gelu(x) = (0.5 * x) * (1 + tanh(kBeta * (x + kKappa * ((x * x) * x))))
// with kBeta = sqrt(2) * (2 / sqrt(pi)) * 0.5 = sqrt(2 / pi), rounded as PyTorch
// rounds it. No fused multiply-add (-ffp-contract=off everywhere).
#pragma once

namespace kiln::gelu_formula {

constexpr double kSqrt2 = 1.41421356237309504880;        // M_SQRT2
constexpr double kTwoBySqrtPi = 1.12837916709551257390;  // M_2_SQRTPI
constexpr double kBeta = kSqrt2 * kTwoBySqrtPi * 0.5;
constexpr double kKappa = 0.044715;

// D: double, a vector of doubles or the emitter's value type. Results go out by
// reference: returning a vector by value would depend on the target options.
template <class D> inline __attribute__((always_inline)) void inner(const D &x, D &out) {
  D cube = x * x * x;
  out = kBeta * (x + kKappa * cube);
}
// t = tanh(inner(x)).
template <class D> inline __attribute__((always_inline)) void outer(const D &x, const D &t, D &out) {
  out = 0.5 * x * (1.0 + t);
}

inline double gelu(double x, double (*tanh)(double)) {
  double in, out;
  inner(x, in);
  outer(x, tanh(in), out);
  return out;
}

}  // namespace kiln::gelu_formula

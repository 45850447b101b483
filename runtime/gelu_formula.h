// gelu_formula.h — `tensor-gelu`, PyTorch's gelu(approximate='tanh') with Kiln's
// own tanh (tanh_formula.h), written once for every path.
//
// Invariant: gelu_steps() below is the only statement of the formula,
// gelu(x) = outer(x, tanh(inner(x))), a template over the number kit
// (tanh_formula.h) with Kiln's tanh_steps in between; apply_unary, the vector
// loop and the kernel emitter instantiate it through elementwise_formulas.h.
// Everything is always inlined, so a vector instantiation is compiled with the
// target options of the loop it sits in.
// The order of operations is fixed by the expressions, as PyTorch writes them:
//   gelu(x) = (0.5 * x) * (1 + tanh(kBeta * (x + kKappa * ((x * x) * x))))
// with kBeta = sqrt(2) * (2 / sqrt(pi)) * 0.5 = sqrt(2 / pi), rounded as PyTorch
// rounds it. No fused multiply-add (-ffp-contract=off everywhere).
#pragma once
#include "runtime/tanh_formula.h"

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

// gelu(x) on any number kit (tanh_formula.h), Kiln's tanh in between.
template <class K>
inline __attribute__((always_inline)) void gelu_steps(const typename K::D &x, typename K::D &out) {
  typename K::D in = x, t = x;
  inner(x, in);
  tanh_formula::tanh_steps<K>(in, t);
  outer(x, t, out);
}

inline double gelu(double x) {
  double out;
  gelu_steps<tanh_formula::ScalarKit>(x, out);
  return out;
}

}  // namespace kiln::gelu_formula

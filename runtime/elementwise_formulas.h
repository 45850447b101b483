// elementwise_formulas.h — every element-wise op's formula, written once.
//
// Invariant: unary<OP, K> and binary<OP, K> below are the only statement of what
// an element-wise op computes. Each path instantiates them on its own number kit
// K: apply_unary / apply_binary (runtime/tensor_ops.cpp) on tanh_formula::ScalarKit
// (double), the vector loops (runtime/tensor_ops_simd.inc) on ScalarKit in loops
// the compiler vectorises or on their VecKit (a vector of doubles), and the kernel
// emitter (compiler/kernel_emitter.cpp) on its JitKit (libgccjit values, each
// operation emitted in the order the template performs it). So eager, graph-eval
// and compiled kernels agree to the bit by construction, for every op.
//
// A kit K has the floating type K::D with + - * / and unary minus (a double on
// either side too), the integer type K::I of the bit patterns (tanh_formula.h),
// and these functions (mirroring what each formula needs, nothing else):
//   K::exp, log, log1p, sqrt, fabs, sin, cos, tan (D) -> D;  K::pow(D, D) -> D
//   K::lt, le, gt, ge, eq, ne (D, D) -> K::M, a truth value per element
//   K::lor(M, M) -> M;  K::select(M, D a, D b) -> a where true, else b
//   K::lit(D like, double) -> D: the constant, of like's type (splatted for vectors)
// Plain arithmetic only: no fused multiply-add (-ffp-contract=off everywhere), and
// the order of operations is the expression's.
#pragma once
#include "runtime/gelu_formula.h"
#include "runtime/op_table.h"
#include "runtime/tanh_formula.h"

namespace kiln::formula {

template <UnaryOp OP, class K>
inline __attribute__((always_inline)) void unary(const typename K::D &x, typename K::D &out) {
  if constexpr (OP == UnaryOp::Neg) out = -x;
  else if constexpr (OP == UnaryOp::Exp) out = K::exp(x);
  else if constexpr (OP == UnaryOp::Log) out = K::log(x);
  else if constexpr (OP == UnaryOp::Sqrt) out = K::sqrt(x);
  else if constexpr (OP == UnaryOp::Tanh) tanh_formula::tanh_steps<K>(x, out);
  // 1/(1+e^-x): one documented formula so every path rounds alike.
  else if constexpr (OP == UnaryOp::Sigmoid) out = 1.0 / (1.0 + K::exp(-x));
  // NaN and -0.0 pass through, as PyTorch's.
  else if constexpr (OP == UnaryOp::Relu) out = K::select(K::lt(x, K::lit(x, 0.0)), K::lit(x, 0.0), x);
  else if constexpr (OP == UnaryOp::Abs) out = K::fabs(x);
  // PyTorch's softplus (beta 1, threshold 20): exact enough above 20, no overflow below.
  else if constexpr (OP == UnaryOp::Softplus)
    out = K::select(K::gt(x, K::lit(x, 20.0)), x, K::log1p(K::exp(x)));
  else if constexpr (OP == UnaryOp::Gelu) gelu_formula::gelu_steps<K>(x, out);
  // PyTorch's silu: x * sigmoid(x) as one quotient.
  else if constexpr (OP == UnaryOp::Silu) out = x / (1.0 + K::exp(-x));
  else if constexpr (OP == UnaryOp::Sin) out = K::sin(x);
  else if constexpr (OP == UnaryOp::Cos) out = K::cos(x);
  else if constexpr (OP == UnaryOp::Tan) out = K::tan(x);
  else if constexpr (OP == UnaryOp::Square) out = x * x;
  else if constexpr (OP == UnaryOp::Reciprocal) out = 1.0 / x;
  else if constexpr (OP == UnaryOp::ReluGrad)
    out = K::select(K::gt(x, K::lit(x, 0.0)), K::lit(x, 1.0), K::lit(x, 0.0));
  else if constexpr (OP == UnaryOp::StopGradient) out = x;
  else static_assert(OP != OP, "a unary op without a formula");
}

template <BinaryOp OP, class K>
inline __attribute__((always_inline)) void binary(const typename K::D &x, const typename K::D &y,
                                                  typename K::D &out) {
  if constexpr (OP == BinaryOp::Add) out = x + y;
  else if constexpr (OP == BinaryOp::Sub) out = x - y;
  else if constexpr (OP == BinaryOp::Mul) out = x * y;
  else if constexpr (OP == BinaryOp::Div) out = x / y;
  else if constexpr (OP == BinaryOp::Pow) out = K::pow(x, y);
  // NaN propagates: x is kept when it is a NaN, y wins only when x is a number.
  else if constexpr (OP == BinaryOp::Maximum) out = K::select(K::lor(K::ge(x, y), K::ne(x, x)), x, y);
  else if constexpr (OP == BinaryOp::Minimum) out = K::select(K::lor(K::le(x, y), K::ne(x, x)), x, y);
  else if constexpr (OP == BinaryOp::Less) out = K::select(K::lt(x, y), K::lit(x, 1.0), K::lit(x, 0.0));
  else if constexpr (OP == BinaryOp::LessEqual) out = K::select(K::le(x, y), K::lit(x, 1.0), K::lit(x, 0.0));
  else if constexpr (OP == BinaryOp::Greater) out = K::select(K::gt(x, y), K::lit(x, 1.0), K::lit(x, 0.0));
  else if constexpr (OP == BinaryOp::GreaterEqual)
    out = K::select(K::ge(x, y), K::lit(x, 1.0), K::lit(x, 0.0));
  else if constexpr (OP == BinaryOp::Equal) out = K::select(K::eq(x, y), K::lit(x, 1.0), K::lit(x, 0.0));
  else static_assert(OP != OP, "a binary op without a formula");
}

// ---- derivatives ------------------------------------------------------------------
// Each differentiable op's gradient rule (its vector-Jacobian product), beside its
// formula. compiler/autodiff.cpp instantiates these on its GraphKit, whose D is a
// graph node and whose every operation records one, so a derivative is made of
// ops that have derivatives of their own and gradients of gradients work; no
// other file knows an element-wise op's derivative. A gradient kit G has:
//   G::D with + - * / and unary minus, a double on either side (a number constant)
//   G::lit(D like, double) -> D: the constant;  G::select(D m, D a, D b) -> D
//   G::exp, log, sin, cos (D) -> D;  G::pow(D, D) -> D: the ops of those names
//   G::lt, le, gt, ge, eq (D, D) -> D: 1.0 or 0.0 (a gradient kit's masks are
//       numbers, so a formula may do arithmetic on them)
//   G::unary(UnaryOp, D) -> D: an op with no library name (sigmoid, tanh, relu-grad)
// The order of operations is the expression's, as in the formulas above. The
// order in which nodes are recorded follows C++'s order of evaluation; gradients'
// bits do not depend on it.

// PyTorch's gelu(approximate='tanh') backward, its terms in its order, t the
// forward's tanh (gelu_formula.h):
//   g * (0.5 (1 + t) + (0.5 x) (1 - t^2) kBeta (1 + 3 kKappa x^2))
template <class G> inline void gelu_grad(const typename G::D &x, const typename G::D &g, typename G::D &dx) {
  using namespace gelu_formula;
  using D = typename G::D;
  D x2 = x * x;
  D t = G::unary(UnaryOp::Tanh, kBeta * (x + kKappa * (x2 * x)));
  D left = 0.5 * x;
  D left_d = 0.5 * (1.0 + t);
  D right_d = left * (1.0 - t * t) * kBeta * (1.0 + 3.0 * kKappa * x2);
  dx = g * (left_d + right_d);
}

// The gradient reaching x, given x, the forward result out and the gradient g
// reaching out. Only differentiable rows (DIFF in runtime/op_table.h) are asked.
template <UnaryOp OP, class G>
inline void unary_grad(const typename G::D &x, const typename G::D &out, const typename G::D &g,
                       typename G::D &dx) {
  if constexpr (OP == UnaryOp::Neg) dx = -g;
  else if constexpr (OP == UnaryOp::Exp) dx = g * out;
  else if constexpr (OP == UnaryOp::Log) dx = g / x;
  else if constexpr (OP == UnaryOp::Sqrt) dx = g / (2.0 * out);
  else if constexpr (OP == UnaryOp::Tanh) dx = g * (1.0 - out * out);
  else if constexpr (OP == UnaryOp::Sigmoid) dx = g * (1.0 - out) * out;
  else if constexpr (OP == UnaryOp::Relu)  // relu'(0) = 0
    dx = G::select(G::unary(UnaryOp::ReluGrad, x), g, G::lit(x, 0.0));
  // sign(x) = (x > 0) - (x < 0); abs'(0) = 0 as in PyTorch.
  else if constexpr (OP == UnaryOp::Abs) dx = g * (G::gt(x, G::lit(x, 0.0)) - G::lt(x, G::lit(x, 0.0)));
  // softplus' = sigmoid, and 1 where the forward is x itself.
  else if constexpr (OP == UnaryOp::Softplus)
    dx = g * G::select(G::gt(x, G::lit(x, 20.0)), G::lit(x, 1.0), G::unary(UnaryOp::Sigmoid, x));
  else if constexpr (OP == UnaryOp::Gelu) gelu_grad<G>(x, g, dx);
  // PyTorch's silu backward, s = sigmoid(x): g * s * (1 + x (1 - s)).
  else if constexpr (OP == UnaryOp::Silu) {
    typename G::D s = G::unary(UnaryOp::Sigmoid, x);
    dx = g * s * (1.0 + x * (1.0 - s));
  } else if constexpr (OP == UnaryOp::Sin) dx = g * G::cos(x);
  else if constexpr (OP == UnaryOp::Cos) dx = g * -G::sin(x);
  else if constexpr (OP == UnaryOp::Tan) dx = g * (1.0 + out * out);
  else if constexpr (OP == UnaryOp::Square) dx = g * (2.0 * x);
  else if constexpr (OP == UnaryOp::Reciprocal) dx = -g * (out * out);
  else static_assert(OP != OP, "a differentiable unary op without a derivative");
}

// The gradient reaching operand ARG (0: x, 1: y) of out = x OP y, at out's
// (broadcast) shape: autodiff sums it back to the operand's. Asked only for an
// operand that needs it, x's first.
template <BinaryOp OP, int ARG, class G>
inline void binary_grad(const typename G::D &x, const typename G::D &y, const typename G::D &out,
                        const typename G::D &g, typename G::D &d) {
  if constexpr (OP == BinaryOp::Add) d = g;
  else if constexpr (OP == BinaryOp::Sub) d = ARG == 0 ? g : -g;
  else if constexpr (OP == BinaryOp::Mul) d = g * (ARG == 0 ? y : x);
  // d(x/y)/dy = -x/y^2, computed as PyTorch does: -g * ((x/y) / y), the forward
  // quotient divided once more. (-g * x) / (y * y) would give NaN or -inf where
  // y*y underflows (|y| < 1.5e-154) although the quotient is finite.
  else if constexpr (OP == BinaryOp::Div) {
    if constexpr (ARG == 0) d = g / y;
    else d = -g * (out / y);
  }
  // PyTorch's rules, zeros included: d(x^y)/dx = y * x^(y-1), but 0 where y == 0
  // (0 * 0^-1 would be NaN), outside the product as PyTorch's pow(x, 0) backward:
  // zeros even for a NaN g; d(x^y)/dy = x^y * log x, but 0 where x == 0 and y >= 0
  // (0 * log 0 would be NaN or -inf).
  else if constexpr (OP == BinaryOp::Pow) {
    typename G::D zero = G::lit(x, 0.0);
    if constexpr (ARG == 0) {
      typename G::D dx = y * G::pow(x, y - 1.0);
      d = G::select(G::eq(y, zero), zero, g * dx);
    } else {
      typename G::D at_zero = G::eq(x, zero) * G::ge(y, zero);
      d = g * G::select(at_zero, zero, out * G::log(x));
    }
  }
  // The gradient goes to the operand the forward formula picked: the first on
  // ties and when it is NaN (x == x is false only for NaN).
  else if constexpr (OP == BinaryOp::Maximum || OP == BinaryOp::Minimum) {
    typename G::D zero = G::lit(x, 0.0);
    typename G::D wins = OP == BinaryOp::Maximum ? G::ge(x, y) : G::le(x, y);
    typename G::D first = G::select(G::eq(x, x), wins, G::lit(x, 1.0));
    d = ARG == 0 ? G::select(first, g, zero) : G::select(first, zero, g);
  } else static_assert(OP != OP, "a differentiable binary op without a derivative");
}

// Whether an op's formula is arithmetic and bit operations only (no library call,
// no comparison): the kernel emitter then runs it on whole vectors (a libgccjit
// vector has arithmetic but no select or libm), the vector loops on VecKit.
constexpr bool unary_arithmetic_only(UnaryOp op) {
  return op == UnaryOp::Neg || op == UnaryOp::Tanh || op == UnaryOp::Gelu || op == UnaryOp::Square ||
         op == UnaryOp::Reciprocal || op == UnaryOp::StopGradient;
}
constexpr bool binary_arithmetic_only(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div;
}

}  // namespace kiln::formula

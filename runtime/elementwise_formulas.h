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

// tensor_elementwise.cpp — element-wise builtins and generic arithmetic on
// tensors (tensor_elementwise.h).
#include "stdlib/tensor_elementwise.h"

#include <array>
#include <string_view>

#include "runtime/args.h"
#include "runtime/fused_elementwise.h"
#include "runtime/number.h"
#include "runtime/op_table.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"
#include "stdlib/tensor_args.h"

namespace kiln {

namespace {

Value binary(const char *who, BinaryOp op, Value x, Value y, int pos_x = 1, int pos_y = 2) {
  Operand a, b;
  operand(who, pos_x, x, a);
  operand(who, pos_y, y, b);
  Shape os;
  if (!broadcast_shapes(a.shape, b.shape, os))
    throw_errorf("{}: shapes {} and {} do not broadcast", who, shape_string(a.shape), shape_string(b.shape));
  // Numbers in, number out (docs/graph.md: a number stays a number on every path).
  if (is_number(x) && is_number(y)) {
    double r;
    k_binary(op, a.data, a.shape, b.data, b.shape, &r, os);
    return make_double(r);
  }
  Tensor *t = alloc_tensor(os);
  k_binary(op, a.data, a.shape, b.data, b.shape, t->data, os);
  return from_ptr(t);
}

Value unary(const char *who, UnaryOp op, Value x) {
  Operand a;
  operand(who, 1, x, a);
  if (is_number(x)) {
    double r;
    k_unary(op, a.data, 1, &r);
    return make_double(r);
  }
  Tensor *t = alloc_tensor(a.shape);
  k_unary(op, a.data, t->size, t->data);
  return from_ptr(t);
}

// One builtin per op-table row that names one (runtime/op_table.h).
// (Instantiated for every row; registered only for rows with a builtin.)
template <int I> Value b_binary_row(int argc, Value *argv) {
  constexpr const BinaryOpRow &r = kBinaryOps[I];
  if (Value f = foreign_call(binary_op(r.op), argc, argv); f != NOVALUE) return f;
  return binary(r.builtin ? r.builtin : r.graph, r.op, argv[0], argv[1]);
}
template <int I> Value b_unary_row(int argc, Value *argv) {
  constexpr const UnaryOpRow &r = kUnaryOps[I];
  if (Value f = foreign_call(unary_op(r.op), argc, argv); f != NOVALUE) return f;
  return unary(r.builtin ? r.builtin : r.graph, r.op, argv[0]);
}
template <int... I>
constexpr std::array<BuiltinFn, sizeof...(I)> binary_row_fns(std::integer_sequence<int, I...>) {
  return {b_binary_row<I>...};
}
template <int... I>
constexpr std::array<BuiltinFn, sizeof...(I)> unary_row_fns(std::integer_sequence<int, I...>) {
  return {b_unary_row<I>...};
}

// Generic arithmetic: (+ t 1), (* 2 t), (sqrt t) ...
Value fold(const char *op, BinaryOp bop, int argc, Value *argv) {
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = binary(op, bop, acc, argv[i], i == 1 ? 1 : i, i + 1);
  return acc;
}

Value tensor_arith(const char *op, int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (!is_tensor(argv[i]) && !is_number(argv[i])) type_error(op, i + 1, "a number or a tensor", argv[i]);
  std::string_view o = op;
  if (argc == 1) {
    Value x = argv[0];
    for (const UnaryOpRow &r : kUnaryOps)
      if (r.generic && o == r.generic) return unary(op, r.op, x);
    if (o == "1+") return binary(op, BinaryOp::Add, x, make_fixnum(1));
    if (o == "1-") return binary(op, BinaryOp::Sub, x, make_fixnum(1));
  }
  for (const BinaryOpRow &r : kBinaryOps) {
    if (r.comparison || !r.generic || o != r.generic) continue;
    if (argc == 1) {
      switch (r.one_argument) {
      case OneArgument::None: return NOVALUE;
      case OneArgument::Identity: return argv[0];
      case OneArgument::Neg: return unary(op, UnaryOp::Neg, argv[0]);
      case OneArgument::Reciprocal: return unary(op, UnaryOp::Reciprocal, argv[0]);
      }
    }
    if (!r.folds && argc != 2) return NOVALUE;
    return fold(op, r.op, argc, argv);
  }
  return NOVALUE;  // comparisons and the rest keep their number-only meaning
}

}  // namespace

void register_elementwise_builtins() {
  g_type_hooks[T_TENSOR].arith = tensor_arith;  // symbolic values outrank tensors
  g_type_hooks[T_TENSOR].arith_rank = 1;
  static constexpr auto binary_fns = binary_row_fns(std::make_integer_sequence<int, kBinaryOpCount>{});
  static constexpr auto unary_fns = unary_row_fns(std::make_integer_sequence<int, kUnaryOpCount>{});
  for (const BinaryOpRow &r : kBinaryOps) {
    if (!r.builtin) continue;
    defbuiltin(r.builtin, 2, 2, binary_fns[size_t(r.op)], r.doc);
    if (r.fusable) register_fusable_binary(r.builtin, r.op);
  }
  for (const UnaryOpRow &r : kUnaryOps) {
    if (!r.builtin) continue;
    defbuiltin(r.builtin, 1, 1, unary_fns[size_t(r.op)], r.doc);
    if (r.fusable) register_fusable_unary(r.builtin, r.op);
  }
}

}  // namespace kiln

// tensor_args.h — argument checkers of the tensor builtins (stdlib only).
//
// Invariant: a number is a rank-0 operand wherever the builtins take "a number or
// a tensor" (numbers in give a number out, docs/tensors.md); its value lives in
// the Operand itself, so an Operand must outlive the kernels reading `data`.
#pragma once
#include "runtime/tensor.h"

namespace kiln {

// ARG (argument POS of WHO) as a tensor; raises `WHO: argument POS must be a tensor, got V`.
Tensor *arg_tensor(const char *who, int pos, Value v);

// A tensor-or-number operand seen as a buffer plus shape.
struct Operand {
  Shape shape;
  const double *data;
  double scalar;  // storage for a number operand
};
// Fills `o` from V; raises `WHO: argument POS must be a number or a tensor, got V`.
void operand(const char *who, int pos, Value v, Operand &o);

// A list or a vector: what a nested-sequence argument (`tensor`'s data, a list of
// indices) may be at each level.
inline bool is_sequence(Value v) { return v == NIL || is_pair(v) || is_vector(v); }

}  // namespace kiln

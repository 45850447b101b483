// fused_elementwise.h — nested calls of element-wise tensor builtins, such as
// `(tensor-sub w (tensor-mul 0.01 g))`, evaluated in one pass over the elements
// instead of one pass and one fresh tensor per call.
//
// Invariant: fusion never changes what a program computes or raises. The fused
// pass computes each element with the same vector loops and in the same
// operation order as the nested builtins, so it is bit-identical to them; and it
// runs only when the unfused calls could not fail or have other effects:
//   - every operator position is a global variable still holding the fusable
//     builtin it held when the call was analysed (a redefinition turns fusion
//     off; the check is GlobalBuiltinCall's own),
//   - every leaf operand is a constant or a variable whose value is at hand
//     without raising (no side effects, so leaves may be read in any order),
//   - every leaf value is a number or a tensor, and all tensors of rank > 0 have
//     one shape (rank-0 tensors and numbers act as scalars, as in broadcasting).
// Anything else (a symbolic value while tracing, a type or shape error, other
// broadcasting) runs the ordinary call nodes the fused node keeps.
#pragma once
#include "runtime/nodes.h"
#include "runtime/tensor_ops.h"

namespace kiln {

// Makes the builtin bound to NAME (already defined) fusable as OP.
void register_fusable_binary(const char *name, BinaryOp op);
void register_fusable_unary(const char *name, UnaryOp op);

// An analysed call, returned as is unless it is a nest of at least two direct
// calls of fusable builtins (GlobalBuiltinCall) over constant and variable
// leaves, in which case a fused node wrapping it is returned.
Node *fuse_elementwise_call(Node *call);

}  // namespace kiln

// tensor_shapes.h — the argument and shape rules of the shape-changing tensor
// builtins, shared by the eager builtins (stdlib/tensors.cpp) and the tracer
// (compiler/trace.cpp).
//
// Invariant: each rule exists once. An eager call and a traced call of the same
// builtin with the same shapes and arguments succeed or fail alike, with the same
// message (tests/golden/errors/eager_vs_traced.lisp checks every op), because
// both ask these functions. They look at shapes and at the Lisp arguments that
// describe shapes, never at tensor data.
#pragma once
#include <string>

#include "runtime/tensor_ops.h"
#include "runtime/value.h"

namespace kiln {

// "a rank-3 tensor (2x3x4)" / "a scalar tensor": how messages describe a tensor.
std::string describe_shape(const Shape &s);
// A shape as the list (tensor-shape T) returns: (2 3), or () for rank 0.
Value shape_list(const Shape &s);
// SHAPE (argument POS of WHO): a list of positive integers or one positive integer,
// rank <= kMaxRank, at most 2^40 elements; raises WHO's type error otherwise.
Shape arg_shape(const char *who, int pos, Value v);

// The axis permutation of (transpose T) or (transpose T AXES) for a tensor of
// shape s, into perm[0..rank); raises transpose's error texts otherwise.
void transpose_permutation(int argc, Value axes, const Shape &s, int *perm);
// AXIS (argument POS of WHO) for a tensor of shape s: in [-rank, rank), a
// negative one counting from the end as in NumPy; raises
// `WHO: axis A out of range for a rank-2 tensor (2x3)` otherwise.
int tensor_axis(const char *who, int pos, Value axis, const Shape &s);
// The shape of (reshape T SPEC) for T of shape s: SPEC is a list of positive
// integers with at most one -1 (inferred); raises reshape's error texts otherwise.
Shape reshape_shape(const Shape &s, Value spec);
// (matmul A B) as NumPy's matmul: the last two axes are matrices (a rank-1 left
// operand is a 1 x k row, a rank-1 right one a k x 1 column, and those unit
// dimensions are dropped from the result, which may be rank 0); the axes before
// them are batch axes, broadcast against each other.
struct MatmulDims {
  Shape a_batch, b_batch, batch;  // each operand's batch axes, and their broadcast
  int64_t m, k, n;
};
// The result's shape (and, when dims is given, the batch and matrix sizes);
// raises matmul's errors.
Shape matmul_shape(const Shape &a, const Shape &b, MatmulDims *dims = nullptr);
// (tensor-slice T AXIS START END) for T of shape s: the result's shape, with the
// resolved axis and START stored; raises tensor-slice's error texts otherwise.
Shape slice_shape(const Shape &s, Value axis, Value start, Value end, int &axis_out, int64_t &start_out);
// (concat TENSORS [AXIS]) for tensors of shapes[0..count), count >= 1 (AXIS is
// NOVALUE when absent: axis 0): the result's shape, with the axis stored;
// raises concat's error texts otherwise.
Shape concat_shape(const Shape *shapes, int64_t count, Value axis, int &axis_out);
// Raises `concat: element K of argument 1 must be a tensor, got V`.
[[noreturn]] void concat_element_error(int64_t k, Value v);
// The shape of (tensor-take X INDICES AXIS): X's shape with `axis` replaced by
// the indices' shape (as NumPy's take); raises when its rank passes kMaxRank.
Shape take_shape(const Shape &x, const Shape &indices, int axis);
// Where a gather's indices come from, which its error names: tensor-take's
// INDICES, or the class labels of one-hot or cross-entropy (rows of an identity
// are gathered at them).
enum class IndexUse : uint8_t { Take, OneHot, CrossEntropy };
// Raises `tensor-take: index 7 is not an integer in [0, 5) (axis 0)`, or for
// labels `one-hot: label 7 is not an integer in [0, 5)`: the one message for a
// bad index, eager, interpreted or from a compiled kernel.
[[noreturn]] void take_index_error(IndexUse use, double index, int axis, int64_t len);
// The builtin an IndexUse names ("tensor-take", "one-hot", "cross-entropy"), and
// the position of its INDICES or LABELS argument.
const char *index_use_name(IndexUse use);
int index_use_position(IndexUse use);
// %one-hot's WHO (a string: "one-hot" or "cross-entropy") as an IndexUse;
// raises `%one-hot: argument 1 must be "one-hot" or "cross-entropy", got V`.
IndexUse labels_use(Value who);
// An index as such messages show it: 7 rather than 7.0 when it is integral.
std::string index_string(double index);
// The shape of a reduction of s along `axis`, keeping it as length 1 or not.
Shape reduced_shape(const Shape &s, int axis, bool keepdims);

}  // namespace kiln

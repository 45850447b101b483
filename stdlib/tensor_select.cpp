// tensor_select.cpp — the builtins that pick elements rather than compute them
// (docs/builtins.md, SPEC §13): tensor-argmax, tensor-take, tensor-where and
// tensor-clip; and %one-hot, behind one-hot and cross-entropy's class labels.
//
// Invariant: as in tensors.cpp, the numbers come from one runtime/tensor_ops.h
// call per step, the same calls the graph interpreter makes for the nodes the
// tracer records for these builtins (compiler/trace.cpp: Argmax, Take, Select,
// and Maximum then Minimum for tensor-clip), and arguments are checked in the
// tracer's order with its messages, so eager and traced calls fail alike.
#include "compiler/trace.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shapes.h"
#include "stdlib/builtins.h"
#include "stdlib/tensor_args.h"

namespace kiln {
namespace {

Value b_tensor_argmax(int argc, Value *argv) {
  if (Value r = foreign_call(Op::Argmax, argc, argv); r != NOVALUE) return r;
  Tensor *x = arg_tensor("tensor-argmax", 1, argv[0]);
  int axis = tensor_axis("tensor-argmax", 2, argc > 1 ? argv[1] : make_int(-1), x->shape);
  Tensor *out = alloc_tensor(reduced_shape(x->shape, axis, false));
  k_argmax_axis(x->data, x->shape, axis, out->data);
  return from_ptr(out);
}

// INDICES or LABELS as the tracer takes them: a list or vector becomes a rank-1
// tensor of its numbers (whether they are integers in range is checked against
// the axis). Anything else but a number, tensor or symbolic value is USE's type
// error.
Value index_operand(IndexUse use, Value v) {
  const char *what = use == IndexUse::Take ? "a list, vector or tensor of integers"
                                           : "a list, vector or tensor of class indices";
  const char *who = index_use_name(use);
  int pos = index_use_position(use);
  if (is_number(v) || is_tensor(v) || has_foreign_call(v)) return v;
  if (!is_sequence(v)) type_error(who, pos, what, v);
  bool vec = is_vector(v);
  int64_t n = vec ? as<Vector>(v)->len : list_length(v);
  if (n <= 0) type_error(who, pos, what, v);
  Tensor *t = alloc_tensor(Shape::of({n}));
  Value p = v;
  for (int64_t i = 0; i < n; i++) {
    Value e = vec ? as<Vector>(v)->items[i] : car(p);
    if (!vec) p = cdr(p);
    if (!is_number(e)) type_error(who, pos, what, v);
    t->data[i] = number_as_double(e);
  }
  return from_ptr(t);
}

Value b_tensor_take(int argc, Value *argv) {
  Value args[3] = {argv[0], index_operand(IndexUse::Take, argv[1]), argc > 2 ? argv[2] : NOVALUE};
  if (Value r = foreign_call(Op::Take, argc, args); r != NOVALUE) return r;
  Tensor *x = arg_tensor("tensor-take", 1, args[0]);
  Operand idx;
  operand("tensor-take", 2, args[1], idx);
  int axis = tensor_axis("tensor-take", 3, argc > 2 ? args[2] : make_int(0), x->shape);
  Shape os = take_shape(x->shape, idx.shape, axis);
  int64_t outer, len, inner, count = idx.shape.size();
  axis_split(x->shape, axis, outer, len, inner);
  int64_t bad = k_bad_index(idx.data, count, len);
  if (bad >= 0) take_index_error(IndexUse::Take, idx.data[bad], axis, len);
  Tensor *out = alloc_tensor(os);
  k_take(x->data, outer, len, inner, idx.data, count, out->data);
  return from_ptr(out);
}

// (%one-hot WHO LABELS N): the rows of the N x N identity at LABELS; traced, the
// same values from nodes (compiler/trace.cpp) whose Take checks the labels, a bad
// one named as WHO's, "one-hot" or "cross-entropy" (stdlib/training.lisp calls
// it for both).
Value b_one_hot(int, Value *argv) {
  IndexUse use = labels_use(argv[0]);
  const char *who = index_use_name(use);
  if (!is_int(argv[2]) || int_of(argv[2]) <= 0) type_error(who, 2, "a positive integer", argv[2]);
  int64_t n = int_of(argv[2]);
  if (n > (int64_t(1) << 20)) throw_errorf("{}: {} classes are too many", who, n);
  Value args[3] = {argv[0], index_operand(use, argv[1]), argv[2]};
  if (Value r = foreign_call(Composite::OneHot, 3, args); r != NOVALUE) return r;
  Operand labels;
  operand(who, index_use_position(use), args[1], labels);
  int64_t count = labels.shape.size();
  Shape os = take_shape(Shape::of({n, n}), labels.shape, 0);
  int64_t bad = k_bad_index(labels.data, count, n);
  if (bad >= 0) take_index_error(use, labels.data[bad], 0, n);
  Tensor *out = alloc_tensor(os);
  double *d = out->data;
  fill_in_chunks(out->size, [d](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) d[i] = 0.0;
  });
  for (int64_t i = 0; i < count; i++) out->data[i * n + int64_t(labels.data[i])] = 1.0;
  return from_ptr(out);
}

Shape broadcast2(const char *who, const Shape &a, const Shape &b) {
  Shape os;
  if (!broadcast_shapes(a, b, os))
    throw_errorf("{}: shapes {} and {} do not broadcast", who, shape_string(a), shape_string(b));
  return os;
}

// (tensor-where C A B): A where C is not 0.0 (NaN counts as not zero), else B.
Value b_tensor_where(int argc, Value *argv) {
  if (Value r = foreign_call(Op::Select, argc, argv); r != NOVALUE) return r;
  Operand c, a, b;
  operand("tensor-where", 1, argv[0], c);
  operand("tensor-where", 2, argv[1], a);
  operand("tensor-where", 3, argv[2], b);
  // Graph::select's order: A with B, then C with that.
  Shape os = broadcast2("tensor-where", c.shape, broadcast2("tensor-where", a.shape, b.shape));
  // Numbers in, number out, as the Select node's is_number.
  if (is_number(argv[0]) && is_number(argv[1]) && is_number(argv[2])) {
    double r;
    k_select(c.data, c.shape, a.data, a.shape, b.data, b.shape, &r, os);
    return make_double(r);
  }
  Tensor *t = alloc_tensor(os);
  k_select(c.data, c.shape, a.data, a.shape, b.data, b.shape, t->data, os);
  return from_ptr(t);
}

// (tensor-clip T LO HI): min(max(T, LO), HI), each step a k_binary over the
// broadcast shapes, as the Maximum and Minimum nodes it traces to.
Value b_tensor_clip(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::Clip, argc, argv); r != NOVALUE) return r;
  Operand x, lo, hi;
  operand("tensor-clip", 1, argv[0], x);
  operand("tensor-clip", 2, argv[1], lo);
  operand("tensor-clip", 3, argv[2], hi);
  Shape low_shape = broadcast2("tensor-clip", x.shape, lo.shape);
  Shape os = broadcast2("tensor-clip", low_shape, hi.shape);
  if (is_number(argv[0]) && is_number(argv[1]) && is_number(argv[2])) {
    double low, r;
    k_binary(BinaryOp::Maximum, x.data, x.shape, lo.data, lo.shape, &low, low_shape);
    k_binary(BinaryOp::Minimum, &low, low_shape, hi.data, hi.shape, &r, os);
    return make_double(r);
  }
  Tensor *low = alloc_tensor(low_shape);
  k_binary(BinaryOp::Maximum, x.data, x.shape, lo.data, lo.shape, low->data, low_shape);
  Tensor *t = alloc_tensor(os);
  k_binary(BinaryOp::Minimum, low->data, low_shape, hi.data, hi.shape, t->data, os);
  return from_ptr(t);
}

BuiltinRegistrar tensor_select_registrar([] {
  defbuiltin(
      Op::Argmax, 1, 2, b_tensor_argmax,
      "(tensor-argmax T [AXIS]): the index of the first largest element along AXIS (default the last), "
      "as a float; a NaN counts as largest.");
  defbuiltin(Op::Take, 2, 3, b_tensor_take,
             "(tensor-take T INDICES [AXIS]): the entries of T at INDICES (integers in a list, vector or "
             "tensor) along AXIS (default 0), as NumPy's take; the gradient adds up repeated indices.");
  defbuiltin(Composite::OneHot, 3, 3, b_one_hot);
  defbuiltin(Op::Select, 3, 3, b_tensor_where,
             "(tensor-where C A B): elementwise A where C is not 0, else B, all three broadcast.");
  defbuiltin(Composite::Clip, 3, 3, b_tensor_clip,
             "(tensor-clip T LO HI): elementwise min(max(T, LO), HI), as PyTorch's clamp.");
});

}  // namespace
}  // namespace kiln

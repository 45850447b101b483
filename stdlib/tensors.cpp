// tensors.cpp — the tensor builtins of docs/tensors.md but the element-wise ones
// (tensor_elementwise.cpp): construction, inspection, reductions, shape changes.
//
// Invariant: every numeric loop here is a call into runtime/tensor_ops.h, so the
// eager builtins, the graph interpreter and compiled kernels share one
// summation order. Builtins only check arguments, work out result shapes and
// allocate results; a result tensor is fully written before it is returned and
// never written again (tensors are immutable from Lisp). Error messages name
// the builtin and the shapes involved (`tensor-add: shapes 2x3 and 4x3 do not
// broadcast`).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/eval.h"
#include "runtime/eval_internal.h"
#include "runtime/fused_elementwise.h"
#include "runtime/list_builder.h"
#include "runtime/number.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shapes.h"
#include "stdlib/builtins.h"
#include "stdlib/tensor_args.h"
#include "stdlib/tensor_elementwise.h"

namespace kiln {

namespace {

// ---- construction -------------------------------------------------------------------

int64_t sequence_length(Value v) { return is_vector(v) ? as<Vector>(v)->len : list_length(v); }

// Fills `out` from nested lists/vectors `v` at depth `depth` (= the axis its
// elements index), checking that every level has the inferred length.
void fill_nested(Value v, const Shape &s, int depth, double *&out) {
  if (depth == s.rank) {
    if (is_number(v)) {
      *out++ = number_as_double(v);
      return;
    }
    if (is_sequence(v))
      throw_errorf("tensor: ragged input at depth {}: expected a number, got {}", depth,
                   error_value_string(v));
    throw_errorf("tensor: element at depth {} must be a {}number, got {}", depth,
                 is_compnum(v) ? "real " : "", error_value_string(v));
  }
  if (!is_sequence(v) || sequence_length(v) != s.dim[depth])
    throw_errorf("tensor: ragged input at depth {}: expected a list of {} element{}, got {}", depth,
                 s.dim[depth], s.dim[depth] == 1 ? "" : "s", error_value_string(v));
  if (is_vector(v)) {
    Vector *vec = as<Vector>(v);
    for (int64_t i = 0; i < vec->len; i++) fill_nested(vec->items[i], s, depth + 1, out);
  } else {
    for (Value p = v; p != NIL; p = cdr(p)) fill_nested(car(p), s, depth + 1, out);
  }
}

Value b_tensor(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::Tensor, argc, argv); r != NOVALUE) return r;
  Value x = argv[0];
  if (is_tensor(x)) return x;
  if (is_number(x)) return make_scalar_tensor(number_as_double(x));
  if (!is_sequence(x)) type_error("tensor", 1, "a number or a nested list of numbers", x);
  // The shape comes from the first element at each depth; fill_nested checks the rest.
  Shape s;
  for (Value p = x; is_sequence(p);) {
    int64_t n = sequence_length(p);
    if (n < 0) type_error("tensor", 1, "a number or a nested list of numbers", x);
    if (n == 0) throw_errorf("tensor: empty list at depth {}", s.rank);
    if (s.rank == kMaxRank) throw_errorf("tensor: nesting deeper than the maximum rank {}", kMaxRank);
    s.dim[s.rank++] = n;
    p = is_vector(p) ? as<Vector>(p)->items[0] : car(p);
  }
  Tensor *t = alloc_tensor(s);
  double *out = t->data;
  fill_nested(x, s, 0, out);
  return from_ptr(t);
}

Value b_zeros(int, Value *argv) { return make_tensor_filled(arg_shape("zeros", 1, argv[0]), 0.0); }
Value b_ones(int, Value *argv) { return make_tensor_filled(arg_shape("ones", 1, argv[0]), 1.0); }
Value b_full(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::Full, argc, argv); r != NOVALUE) return r;
  Shape s = arg_shape("full", 1, argv[0]);
  return make_tensor_filled(s, arg_num("full", 2, argv[1]));
}

// (arange N) | (arange START END [STEP]): element i is START + i*STEP.
Value b_arange(int argc, Value *argv) {
  double start = 0, end, step = 1;
  if (argc == 1) {
    end = arg_num("arange", 1, argv[0]);
  } else {
    start = arg_num("arange", 1, argv[0]);
    end = arg_num("arange", 2, argv[1]);
    if (argc == 3) step = arg_num("arange", 3, argv[2]);
  }
  if (step == 0 || step != step)
    throw_errorf("arange: step must be a non-zero number, got {}", format_double(step));
  double count = std::ceil((end - start) / step);
  if (!(count >= 1))
    throw_errorf("arange: empty range from {} to {} by {}", format_double(start), format_double(end),
                 format_double(step));
  if (count > double(int64_t(1) << 40))
    throw_errorf("arange: range of {} elements is too large", format_double(count));
  Shape s = Shape::of({int64_t(count)});
  Tensor *t = alloc_tensor(s);
  double *d = t->data;
  fill_in_chunks(t->size, [d, start, step](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) d[i] = start + double(i) * step;
  });
  return from_ptr(t);
}

// ---- inspection -----------------------------------------------------------------------

Value b_tensor_p(int, Value *argv) { return boolv(is_tensor(argv[0])); }
Value b_tensor_shape(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::TensorShape, argc, argv); r != NOVALUE) return r;
  return shape_list(arg_tensor("tensor-shape", 1, argv[0])->shape);
}
Value b_tensor_rank(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::TensorRank, argc, argv); r != NOVALUE) return r;
  return make_int(arg_tensor("tensor-rank", 1, argv[0])->shape.rank);
}
Value b_tensor_size(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::TensorSize, argc, argv); r != NOVALUE) return r;
  return make_int(arg_tensor("tensor-size", 1, argv[0])->size);
}

Value b_tensor_ref(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::TensorRef, argc, argv); r != NOVALUE) return r;
  Tensor *t = arg_tensor("tensor-ref", 1, argv[0]);
  const Shape &s = t->shape;
  if (argc - 1 != s.rank)
    throw_errorf("tensor-ref: {} needs {} ind{}, got {}", describe_shape(s), s.rank,
                 s.rank == 1 ? "ex" : "ices", argc - 1);
  int64_t off = 0;
  for (int i = 0; i < s.rank; i++) {
    int64_t ix = arg_int("tensor-ref", i + 2, argv[i + 1]);
    if (ix < 0 || ix >= s.dim[i]) range_error("tensor-ref", ix, "dimension", s.dim[i]);
    off = off * s.dim[i] + ix;
  }
  return make_double(t->data[off]);
}

Value nested_list(const Tensor *t, int depth, int64_t &pos) {
  if (depth == t->shape.rank) return make_double(t->data[pos++]);
  int64_t n = t->shape.dim[depth];
  ListBuilder items;
  for (int64_t i = 0; i < n; i++) items.push(nested_list(t, depth + 1, pos));
  return items.head;
}

Value b_tensor_to_list(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::TensorToList, argc, argv); r != NOVALUE) return r;
  Tensor *t = arg_tensor("tensor->list", 1, argv[0]);
  int64_t pos = 0;
  return nested_list(t, 0, pos);
}

Value b_tensor_item(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::TensorItem, argc, argv); r != NOVALUE) return r;
  Tensor *t = arg_tensor("tensor-item", 1, argv[0]);
  if (t->size != 1) type_error("tensor-item", 1, "a tensor with one element", argv[0]);
  return make_double(t->data[0]);
}

Value b_tensor_map(int argc, Value *argv) {
  if (Value r = foreign_call(Composite::TensorMap, argc, argv); r != NOVALUE) return r;
  Value f = arg_proc("tensor-map", 1, argv[0]);
  Tensor *in = arg_tensor("tensor-map", 2, argv[1]);
  Tensor *out = alloc_tensor(in->shape);
  Value keep = from_ptr(out);  // a GC-visible reference while F runs
  // No reentry barrier (continuation.h): a continuation captured in F may
  // resume this frame after an earlier return handed `out` out; then it
  // fills a copy instead.
  uint64_t epoch = g_reentry_epoch;
  for (int64_t i = 0; i < in->size; i++) {
    Value x = make_double(in->data[i]);
    Value r = call_procedure(f, 1, &x);
    if (!is_number(r))
      throw_errorf("tensor-map: the procedure must return a number, got {}", error_value_string(r));
    if (epoch != g_reentry_epoch) {
      epoch = g_reentry_epoch;
      Tensor *fresh = alloc_tensor(in->shape);
      std::copy(out->data, out->data + i, fresh->data);
      out = fresh;
      keep = from_ptr(out);
    }
    out->data[i] = number_as_double(r);
  }
  return keep;
}

// ---- reductions ---------------------------------------------------------------------

enum class Reduce { Sum, Mean, Max, Min, Var };

// min is -max(-x), element for element, so it picks the first minimal element
// (or the first NaN) exactly as max picks the first maximal one, and its gradient
// is max's (graph: neg, max, neg).
double min_all(const double *x, int64_t n) {
  std::vector<double> neg(static_cast<size_t>(n));
  k_unary(UnaryOp::Neg, x, n, neg.data());
  return -k_max(neg.data(), n);
}
void min_axis(const double *x, const Shape &s, int axis, double *out) {
  std::vector<double> neg(static_cast<size_t>(s.size()));
  k_unary(UnaryOp::Neg, x, s.size(), neg.data());
  k_max_axis(neg.data(), s, axis, out);
  int64_t n = s.size() / s.dim[axis];
  k_unary(UnaryOp::Neg, out, n, out);
}
// The population variance, mean((x - mean(x))^2), each mean as k_mean or
// k_mean_axis computes it; the graph records the same steps (trace.cpp).
double var_all(const double *x, int64_t n) {
  double m = k_mean(x, n);
  std::vector<double> d(static_cast<size_t>(n));
  Shape s = Shape::of({n});
  k_binary(BinaryOp::Sub, x, s, &m, Shape{}, d.data(), s);
  k_unary(UnaryOp::Square, d.data(), n, d.data());
  return k_mean(d.data(), n);
}
void var_axis(const double *x, const Shape &s, int axis, double *out) {
  Shape ms = reduced_shape(s, axis, true);
  std::vector<double> m(size_t(ms.size())), d(size_t(s.size()));
  k_mean_axis(x, s, axis, m.data());
  k_binary(BinaryOp::Sub, x, s, m.data(), ms, d.data(), s);
  k_unary(UnaryOp::Square, d.data(), s.size(), d.data());
  k_mean_axis(d.data(), s, axis, out);
}

Value reduce(BuiltinOp builtin, Reduce kind, int argc, Value *argv) {
  if (Value r = foreign_call(builtin, argc, argv); r != NOVALUE) return r;
  const char *who = builtin.name();
  // A number is a rank-0 tensor here, as in graph-eval (docs/graph.md).
  Operand x;
  operand(who, 1, argv[0], x);
  const Shape &s = x.shape;
  if (argc == 1) {
    switch (kind) {
    case Reduce::Sum: return make_double(k_sum(x.data, s.size()));
    case Reduce::Mean: return make_double(k_mean(x.data, s.size()));
    case Reduce::Max: return make_double(k_max(x.data, s.size()));
    case Reduce::Min: return make_double(min_all(x.data, s.size()));
    case Reduce::Var: return make_double(var_all(x.data, s.size()));
    }
  }
  int axis = tensor_axis(who, 2, argv[1], s);
  bool keepdims = argc == 3 && truthy(argv[2]);
  Tensor *out = alloc_tensor(reduced_shape(s, axis, keepdims));
  switch (kind) {
  case Reduce::Sum: k_sum_axis(x.data, s, axis, out->data); break;
  case Reduce::Mean: k_mean_axis(x.data, s, axis, out->data); break;
  case Reduce::Max: k_max_axis(x.data, s, axis, out->data); break;
  case Reduce::Min: min_axis(x.data, s, axis, out->data); break;
  case Reduce::Var: var_axis(x.data, s, axis, out->data); break;
  }
  return from_ptr(out);
}

Value b_tensor_sum(int argc, Value *argv) { return reduce(Op::Sum, Reduce::Sum, argc, argv); }
Value b_tensor_mean(int argc, Value *argv) { return reduce(Op::Mean, Reduce::Mean, argc, argv); }
Value b_tensor_max(int argc, Value *argv) { return reduce(Op::Max, Reduce::Max, argc, argv); }
Value b_tensor_min(int argc, Value *argv) { return reduce(Composite::Min, Reduce::Min, argc, argv); }
Value b_tensor_var(int argc, Value *argv) { return reduce(Composite::Var, Reduce::Var, argc, argv); }

// ---- linear algebra and shape ---------------------------------------------------------

Value b_matmul(int argc, Value *argv) {
  if (Value r = foreign_call(Op::Matmul, argc, argv); r != NOVALUE) return r;
  Tensor *a = arg_tensor("matmul", 1, argv[0]);
  Tensor *b = arg_tensor("matmul", 2, argv[1]);
  MatmulDims d;
  Shape os = matmul_shape(a->shape, b->shape, &d);
  Tensor *c = alloc_tensor(os);
  k_matmul_batched(a->data, d.a_batch, b->data, d.b_batch, c->data, d.batch, d.m, d.k, d.n);
  if (os.rank == 0) return make_double(c->data[0]);
  return from_ptr(c);
}

Value b_transpose(int argc, Value *argv) {
  if (Value r = foreign_call(Op::Transpose, argc, argv); r != NOVALUE) return r;
  Tensor *t = arg_tensor("transpose", 1, argv[0]);
  const Shape &s = t->shape;
  int perm[kMaxRank];
  transpose_permutation(argc, argc > 1 ? argv[1] : NIL, s, perm);
  Shape os;
  os.rank = s.rank;
  for (int i = 0; i < s.rank; i++) os.dim[i] = s.dim[perm[i]];
  Tensor *out = alloc_tensor(os);
  k_transpose(t->data, s, perm, out->data);
  return from_ptr(out);
}

Value b_reshape(int argc, Value *argv) {
  if (Value r = foreign_call(Op::Reshape, argc, argv); r != NOVALUE) return r;
  Tensor *t = arg_tensor("reshape", 1, argv[0]);
  return tensor_view(t, reshape_shape(t->shape, argv[1]));
}

Value b_concat(int argc, Value *argv) {
  if (Value r = foreign_call_in_list(Op::Concat, argv[0], argc, argv); r != NOVALUE) return r;
  Value list = argv[0];
  int64_t count = list_length(list);
  if (count <= 0) type_error("concat", 1, "a non-empty list of tensors", list);
  GcVec<Tensor *> parts;
  std::vector<Shape> shapes;
  int64_t k = 1;
  for (Value p = list; p != NIL; p = cdr(p), k++) {
    if (!is_tensor(car(p))) concat_element_error(k, car(p));
    parts.push_back(tensor_of(car(p)));
    shapes.push_back(parts.back()->shape);
  }
  int axis;
  Shape os = concat_shape(shapes.data(), count, argc == 2 ? argv[1] : NOVALUE, axis);
  Tensor *out = alloc_tensor(os);
  int64_t outer, total, inner, at = 0;
  axis_split(os, axis, outer, total, inner);
  for (Tensor *t : parts) {
    int64_t len = t->shape.dim[axis];
    k_copy_along(t->data, len, 0, out->data, total, at, len, outer, inner);
    at += len;
  }
  return from_ptr(out);
}

Value b_tensor_slice(int argc, Value *argv) {
  if (Value r = foreign_call(Op::Slice, argc, argv); r != NOVALUE) return r;
  Tensor *t = arg_tensor("tensor-slice", 1, argv[0]);
  int axis;
  int64_t start, outer, len, inner;
  Shape os = slice_shape(t->shape, argv[1], argv[2], argv[3], axis, start);
  Tensor *out = alloc_tensor(os);
  axis_split(os, axis, outer, len, inner);
  k_copy_along(t->data, t->shape.dim[axis], start, out->data, len, 0, len, outer, inner);
  return from_ptr(out);
}

BuiltinRegistrar tensors_registrar([] {
  register_tensor_type();

  defbuiltin(Composite::Tensor, 1, 1, b_tensor,
             "(tensor X): a tensor from a number or nested lists/vectors of numbers.");
  defbuiltin("zeros", 1, 1, b_zeros,
             "(zeros SHAPE): a tensor of zeros; SHAPE is a list of positive integers.");
  defbuiltin("ones", 1, 1, b_ones, "(ones SHAPE): a tensor of ones.");
  defbuiltin(Composite::Full, 2, 2, b_full, "(full SHAPE V): a tensor with every element V.");
  defbuiltin("arange", 1, 3, b_arange,
             "(arange N) or (arange START END [STEP]): a rank-1 tensor START, START+STEP, ... below END.");

  defbuiltin("tensor?", 1, 1, b_tensor_p, "(tensor? X): #t if X is a tensor.");
  defbuiltin(Composite::TensorShape, 1, 1, b_tensor_shape,
             "(tensor-shape T): the shape as a list; () for a scalar tensor.");
  defbuiltin(Composite::TensorRank, 1, 1, b_tensor_rank, "(tensor-rank T): the number of dimensions.");
  defbuiltin(Composite::TensorSize, 1, 1, b_tensor_size, "(tensor-size T): the number of elements.");
  defbuiltin(Composite::TensorRef, 1, -1, b_tensor_ref,
             "(tensor-ref T I ...): the element at one index per dimension.");
  defbuiltin(Composite::TensorToList, 1, 1, b_tensor_to_list,
             "(tensor->list T): nested lists of the elements (a number for a scalar tensor).");
  defbuiltin(Composite::TensorItem, 1, 1, b_tensor_item,
             "(tensor-item T): the only element of a one-element tensor.");

  register_elementwise_builtins();
  defbuiltin(Composite::TensorMap, 2, 2, b_tensor_map,
             "(tensor-map F T): a tensor of (F x) for every element x.");

  defbuiltin(Op::Sum, 1, 3, b_tensor_sum,
             "(tensor-sum T [AXIS [KEEPDIMS]]): the sum of all elements, or a tensor of sums along AXIS.");
  defbuiltin(Op::Mean, 1, 3, b_tensor_mean,
             "(tensor-mean T [AXIS [KEEPDIMS]]): the mean of all elements, or along AXIS.");
  defbuiltin(Op::Max, 1, 3, b_tensor_max,
             "(tensor-max T [AXIS [KEEPDIMS]]): the largest element, or the largest along AXIS.");
  defbuiltin(Composite::Min, 1, 3, b_tensor_min,
             "(tensor-min T [AXIS [KEEPDIMS]]): the smallest element, or the smallest along AXIS.");
  defbuiltin(Composite::Var, 1, 3, b_tensor_var,
             "(tensor-var T [AXIS [KEEPDIMS]]): the population variance (mean squared deviation from "
             "the mean), of all elements or along AXIS.");

  defbuiltin(Op::Matmul, 2, 2, b_matmul,
             "(matmul A B): matrix product of the last two axes, the leading (batch) axes broadcast; "
             "rank-1 operands as in NumPy.");
  defbuiltin(Op::Transpose, 1, 2, b_transpose,
             "(transpose T [AXES]): swap the two axes of a rank-2 tensor, or permute by AXES.");
  defbuiltin(Op::Reshape, 2, 2, b_reshape,
             "(reshape T SHAPE): the same elements in a new shape; one -1 is inferred.");
  defbuiltin(Op::Concat, 1, 2, b_concat, "(concat TENSORS [AXIS]): join tensors along AXIS (default 0).");
  defbuiltin(Op::Slice, 4, 4, b_tensor_slice,
             "(tensor-slice T AXIS START END): elements START..END-1 along AXIS.");
});

}  // namespace
}  // namespace kiln

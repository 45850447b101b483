// tensors.cpp — the tensor builtins of SPEC §7 and generic arithmetic on tensors.
//
// Invariant: every numeric loop here is a call into runtime/kernels.h, so the
// eager builtins, the graph interpreter and compiled kernels share one
// summation order. Builtins only check arguments, work out result shapes and
// allocate results; a result tensor is fully written before it is returned and
// never written again (tensors are immutable from Lisp). Error messages name
// the builtin and the shapes involved (`tensor-add: shapes 2x3 and 4x3 do not
// broadcast`).
#include <array>
#include <cmath>
#include <string>

#include "../runtime/eval.h"
#include "../runtime/fused_elementwise.h"
#include "../runtime/number.h"
#include "../runtime/printer.h"
#include "../runtime/tensor.h"
#include "builtins.h"

namespace kiln {

namespace {

// ---- argument helpers -------------------------------------------------------------

Tensor *arg_tensor(const char *who, int pos, Value v) {
  if (is_tensor(v)) return tensor_of(v);
  type_error(who, pos, "a tensor", v);
}

// A tensor-or-number operand seen as a buffer plus shape; numbers are rank 0.
struct Operand {
  Shape shape;
  const double *data;
  double scalar;  // storage for a number operand
};

void operand(const char *who, int pos, Value v, Operand &o) {
  if (is_tensor(v)) {
    o.shape = tensor_of(v)->shape;
    o.data = tensor_of(v)->data;
  } else if (is_number(v)) {
    o.shape = Shape{};
    o.scalar = number_as_double(v);
    o.data = &o.scalar;
  } else {
    type_error(who, pos, "a tensor or a number", v);
  }
}

// SHAPE: a list of positive integers (or one positive integer), rank <= 8.
Shape arg_shape(const char *who, int pos, Value v) {
  Shape s;
  if (is_int(v) && int_of(v) > 0) {
    s.rank = 1;
    s.dim[0] = int_of(v);
  } else {
    if (list_length(v) < 0) type_error(who, pos, "a list of positive integers", v);
    for (Value p = v; p != NIL; p = cdr(p)) {
      Value d = car(p);
      if (!is_int(d) || int_of(d) <= 0) type_error(who, pos, "a list of positive integers", v);
      if (s.rank == kMaxRank)
        throw_errorf("{}: rank {} exceeds the maximum rank {}", who, list_length(v), kMaxRank);
      s.dim[s.rank++] = int_of(d);
    }
  }
  // Guard the element count against overflow (and absurd allocations).
  double count = 1;
  for (int i = 0; i < s.rank; i++) count *= double(s.dim[i]);
  if (count > double(int64_t(1) << 40)) throw_errorf("{}: shape {} is too large", who, shape_string(s));
  return s;
}

Value shape_list(const Shape &s) {
  Value r = NIL;
  for (int i = s.rank - 1; i >= 0; i--) r = cons(make_int(s.dim[i]), r);
  return r;
}

// ---- construction -------------------------------------------------------------------

bool is_sequence(Value v) { return v == NIL || is_pair(v) || is_vector(v); }
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
    throw_errorf("tensor: element at depth {} must be a number, got {}", depth, error_value_string(v));
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

Value b_tensor(int, Value *argv) {
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
Value b_full(int, Value *argv) {
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
  for (int64_t i = 0; i < t->size; i++) t->data[i] = start + double(i) * step;
  return from_ptr(t);
}

// Uniform doubles: SplitMix64 seeded with SEED, top 53 bits of each output.
Value b_tensor_rand(int, Value *argv) {
  Shape s = arg_shape("tensor-rand", 1, argv[0]);
  SplitMix64 rng(uint64_t(arg_int("tensor-rand", 2, argv[1])));
  Tensor *t = alloc_tensor(s);
  for (int64_t i = 0; i < t->size; i++) t->data[i] = rng.next_double();
  return from_ptr(t);
}

// Standard normals by Box-Muller from the same uniform stream: each pair of
// uniforms (u1, u2) gives r*cos(2*pi*u2) then r*sin(2*pi*u2), r = sqrt(-2 ln(1-u1)).
Value b_tensor_randn(int, Value *argv) {
  Shape s = arg_shape("tensor-randn", 1, argv[0]);
  SplitMix64 rng(uint64_t(arg_int("tensor-randn", 2, argv[1])));
  Tensor *t = alloc_tensor(s);
  const double two_pi = 6.283185307179586;
  for (int64_t i = 0; i < t->size; i += 2) {
    double u1 = 1.0 - rng.next_double();  // (0, 1]: log is finite
    double u2 = rng.next_double();
    double r = std::sqrt(-2.0 * std::log(u1));
    double theta = two_pi * u2;
    t->data[i] = r * std::cos(theta);
    if (i + 1 < t->size) t->data[i + 1] = r * std::sin(theta);
  }
  return from_ptr(t);
}

// ---- inspection -----------------------------------------------------------------------

Value b_tensor_p(int, Value *argv) { return boolv(is_tensor(argv[0])); }
Value b_tensor_shape(int, Value *argv) { return shape_list(arg_tensor("tensor-shape", 1, argv[0])->shape); }
Value b_tensor_rank(int, Value *argv) { return make_int(arg_tensor("tensor-rank", 1, argv[0])->shape.rank); }
Value b_tensor_size(int, Value *argv) { return make_int(arg_tensor("tensor-size", 1, argv[0])->size); }

Value b_tensor_ref(int argc, Value *argv) {
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
  Value head = NIL, tail = NIL;
  for (int64_t i = 0; i < n; i++) {
    Value cell = cons(nested_list(t, depth + 1, pos), NIL);
    if (head == NIL) head = cell;
    else as<Pair>(tail)->cdr = cell;
    tail = cell;
  }
  return head;
}

Value b_tensor_to_list(int, Value *argv) {
  Tensor *t = arg_tensor("tensor->list", 1, argv[0]);
  int64_t pos = 0;
  return nested_list(t, 0, pos);
}

Value b_tensor_item(int, Value *argv) {
  Tensor *t = arg_tensor("tensor-item", 1, argv[0]);
  if (t->size != 1) type_error("tensor-item", 1, "a tensor with one element", argv[0]);
  return make_double(t->data[0]);
}

// ---- elementwise -------------------------------------------------------------------

Value binary(const char *who, BinaryOp op, Value x, Value y, int pos_x = 1, int pos_y = 2) {
  Operand a, b;
  operand(who, pos_x, x, a);
  operand(who, pos_y, y, b);
  Shape os;
  if (!broadcast_shapes(a.shape, b.shape, os))
    throw_errorf("{}: shapes {} and {} do not broadcast", who, shape_string(a.shape), shape_string(b.shape));
  // Numbers in, number out (SPEC §8.1: a number stays a number on every path).
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
template <int I> Value b_binary_row(int, Value *argv) {
  constexpr const BinaryOpRow &r = kBinaryOps[I];
  return binary(r.builtin ? r.builtin : r.graph, r.op, argv[0], argv[1]);
}
template <int I> Value b_unary_row(int, Value *argv) {
  constexpr const UnaryOpRow &r = kUnaryOps[I];
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

void register_elementwise_builtins() {
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

Value b_tensor_map(int, Value *argv) {
  Value f = arg_proc("tensor-map", 1, argv[0]);
  Tensor *in = arg_tensor("tensor-map", 2, argv[1]);
  Tensor *out = alloc_tensor(in->shape);
  Value keep = from_ptr(out);  // a GC-visible reference while F runs
  for (int64_t i = 0; i < in->size; i++) {
    Value x = make_double(in->data[i]);
    Value r = apply_proc(f, 1, &x);
    if (!is_number(r))
      throw_errorf("tensor-map: the procedure must return a number, got {}", error_value_string(r));
    out->data[i] = number_as_double(r);
  }
  return keep;
}

// ---- reductions ---------------------------------------------------------------------

enum class Reduce { Sum, Mean, Max };

Value reduce(const char *who, Reduce kind, int argc, Value *argv) {
  // A number is a rank-0 tensor here, as in graph-eval (SPEC §8.1).
  Operand x;
  operand(who, 1, argv[0], x);
  const Shape &s = x.shape;
  if (argc == 1) {
    switch (kind) {
    case Reduce::Sum: return make_double(k_sum(x.data, s.size()));
    case Reduce::Mean: return make_double(k_mean(x.data, s.size()));
    case Reduce::Max: return make_double(k_max(x.data, s.size()));
    }
  }
  int axis = tensor_axis(who, 2, argv[1], s);
  bool keepdims = argc == 3 && truthy(argv[2]);
  Shape os;
  for (int i = 0; i < s.rank; i++) {
    if (i != axis) os.dim[os.rank++] = s.dim[i];
    else if (keepdims) os.dim[os.rank++] = 1;
  }
  Tensor *out = alloc_tensor(os);
  switch (kind) {
  case Reduce::Sum: k_sum_axis(x.data, s, axis, out->data); break;
  case Reduce::Mean: k_mean_axis(x.data, s, axis, out->data); break;
  case Reduce::Max: k_max_axis(x.data, s, axis, out->data); break;
  }
  return from_ptr(out);
}

Value b_tensor_sum(int argc, Value *argv) { return reduce("tensor-sum", Reduce::Sum, argc, argv); }
Value b_tensor_mean(int argc, Value *argv) { return reduce("tensor-mean", Reduce::Mean, argc, argv); }
Value b_tensor_max(int argc, Value *argv) { return reduce("tensor-max", Reduce::Max, argc, argv); }

// ---- linear algebra and shape ---------------------------------------------------------

Value b_matmul(int, Value *argv) {
  Tensor *a = arg_tensor("matmul", 1, argv[0]);
  Tensor *b = arg_tensor("matmul", 2, argv[1]);
  for (int i = 0; i < 2; i++) {
    const Shape &s = (i ? b : a)->shape;
    if (s.rank != 1 && s.rank != 2)
      throw_errorf("matmul: argument {} must be a rank-1 or rank-2 tensor, got {}", i + 1, describe_shape(s));
  }
  // NumPy rules: a rank-1 left operand is a row (1 x k), a rank-1 right operand
  // a column (k x 1); those unit dimensions are dropped from the result.
  const Shape &as = a->shape, &bs = b->shape;
  int64_t m = as.rank == 2 ? as.dim[0] : 1, k = as.dim[as.rank - 1];
  int64_t k2 = bs.dim[0], n = bs.rank == 2 ? bs.dim[1] : 1;
  if (k != k2)
    throw_errorf("matmul: inner dimensions differ ({} and {})", shape_string(as), shape_string(bs));
  Shape os;
  if (as.rank == 2) os.dim[os.rank++] = m;
  if (bs.rank == 2) os.dim[os.rank++] = n;
  Tensor *c = alloc_tensor(os);
  k_matmul(a->data, b->data, c->data, m, k, n);
  if (os.rank == 0) return make_double(c->data[0]);
  return from_ptr(c);
}

Value b_transpose(int argc, Value *argv) {
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

Value b_reshape(int, Value *argv) {
  Tensor *t = arg_tensor("reshape", 1, argv[0]);
  Value spec = argv[1];
  const char *expected = "a list of positive integers (with at most one -1)";
  if (list_length(spec) < 0) type_error("reshape", 2, expected, spec);
  Shape s;
  int infer = -1;
  int64_t known = 1;
  bool overflow = false;  // the product of the given dimensions exceeds int64
  for (Value p = spec; p != NIL; p = cdr(p)) {
    Value d = car(p);
    if (!is_int(d) || int_of(d) == 0 || int_of(d) < -1) type_error("reshape", 2, expected, spec);
    if (s.rank == kMaxRank)
      throw_errorf("reshape: rank {} exceeds the maximum rank {}", list_length(spec), kMaxRank);
    if (int_of(d) == -1) {
      if (infer >= 0)
        throw_errorf("reshape: only one -1 is allowed in the shape {}", error_value_string(spec));
      infer = s.rank;
      s.dim[s.rank++] = -1;
    } else {
      s.dim[s.rank++] = int_of(d);
      if (__builtin_mul_overflow(known, int_of(d), &known)) overflow = true;
    }
  }
  std::string wanted;
  for (Value p = spec; p != NIL; p = cdr(p)) {
    if (!wanted.empty()) wanted += 'x';
    wanted += write_string(car(p));
  }
  if (wanted.empty()) wanted = "scalar";
  if (infer >= 0) {
    if (overflow || known > t->size || t->size % known != 0)
      throw_errorf("reshape: cannot reshape {} ({} elements) into {}", shape_string(t->shape), t->size,
                   wanted);
    s.dim[infer] = t->size / known;
  } else if (overflow || known != t->size) {
    throw_errorf("reshape: cannot reshape {} ({} elements) into {} ({} elements)", shape_string(t->shape),
                 t->size, wanted, overflow ? std::string("too many") : std::to_string(known));
  }
  return tensor_view(t, s);
}

Value b_concat(int argc, Value *argv) {
  Value list = argv[0];
  int64_t count = list_length(list);
  if (count <= 0) type_error("concat", 1, "a non-empty list of tensors", list);
  GcVec<Tensor *> parts;
  std::vector<Shape> shapes;
  for (Value p = list; p != NIL; p = cdr(p)) {
    if (!is_tensor(car(p))) type_error("concat", 1, "a non-empty list of tensors", list);
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

Value b_tensor_slice(int, Value *argv) {
  Tensor *t = arg_tensor("tensor-slice", 1, argv[0]);
  int axis;
  int64_t start, outer, len, inner;
  Shape os = slice_shape(t->shape, argv[1], argv[2], argv[3], axis, start);
  Tensor *out = alloc_tensor(os);
  axis_split(os, axis, outer, len, inner);
  k_copy_along(t->data, t->shape.dim[axis], start, out->data, len, 0, len, outer, inner);
  return from_ptr(out);
}

// ---- generic arithmetic: (+ t 1), (* 2 t), (sqrt t) ... ------------------------------

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

BuiltinRegistrar reg([] {
  register_tensor_type();
  g_type_hooks[T_TENSOR].arith = tensor_arith;  // traced values outrank tensors
  g_type_hooks[T_TENSOR].arith_rank = 1;

  defbuiltin("tensor", 1, 1, b_tensor,
             "(tensor X): a tensor from a number or nested lists/vectors of numbers.");
  defbuiltin("zeros", 1, 1, b_zeros,
             "(zeros SHAPE): a tensor of zeros; SHAPE is a list of positive integers.");
  defbuiltin("ones", 1, 1, b_ones, "(ones SHAPE): a tensor of ones.");
  defbuiltin("full", 2, 2, b_full, "(full SHAPE V): a tensor with every element V.");
  defbuiltin("arange", 1, 3, b_arange,
             "(arange N) or (arange START END [STEP]): a rank-1 tensor START, START+STEP, ... below END.");
  defbuiltin("tensor-rand", 2, 2, b_tensor_rand,
             "(tensor-rand SHAPE SEED): uniform [0,1) numbers from SplitMix64(SEED).");
  defbuiltin("tensor-randn", 2, 2, b_tensor_randn,
             "(tensor-randn SHAPE SEED): standard normal numbers (Box-Muller over SplitMix64(SEED)).");

  defbuiltin("tensor?", 1, 1, b_tensor_p, "(tensor? X): #t if X is a tensor.");
  defbuiltin("tensor-shape", 1, 1, b_tensor_shape,
             "(tensor-shape T): the shape as a list; () for a scalar tensor.");
  defbuiltin("tensor-rank", 1, 1, b_tensor_rank, "(tensor-rank T): the number of dimensions.");
  defbuiltin("tensor-size", 1, 1, b_tensor_size, "(tensor-size T): the number of elements.");
  defbuiltin("tensor-ref", 1, -1, b_tensor_ref,
             "(tensor-ref T I ...): the element at one index per dimension.");
  defbuiltin("tensor->list", 1, 1, b_tensor_to_list,
             "(tensor->list T): nested lists of the elements (a number for a scalar tensor).");
  defbuiltin("tensor-item", 1, 1, b_tensor_item,
             "(tensor-item T): the only element of a one-element tensor.");

  register_elementwise_builtins();
  defbuiltin("tensor-map", 2, 2, b_tensor_map, "(tensor-map F T): a tensor of (F x) for every element x.");

  defbuiltin("tensor-sum", 1, 3, b_tensor_sum,
             "(tensor-sum T [AXIS [KEEPDIMS]]): the sum of all elements, or a tensor of sums along AXIS.");
  defbuiltin("tensor-mean", 1, 3, b_tensor_mean,
             "(tensor-mean T [AXIS [KEEPDIMS]]): the mean of all elements, or along AXIS.");
  defbuiltin("tensor-max", 1, 3, b_tensor_max,
             "(tensor-max T [AXIS [KEEPDIMS]]): the largest element, or the largest along AXIS.");

  defbuiltin("matmul", 2, 2, b_matmul,
             "(matmul A B): matrix product (rank 2 x rank 2; rank-1 operands as in NumPy).");
  defbuiltin("transpose", 1, 2, b_transpose,
             "(transpose T [AXES]): swap the two axes of a rank-2 tensor, or permute by AXES.");
  defbuiltin("reshape", 2, 2, b_reshape,
             "(reshape T SHAPE): the same elements in a new shape; one -1 is inferred.");
  defbuiltin("concat", 1, 2, b_concat, "(concat TENSORS [AXIS]): join tensors along AXIS (default 0).");
  defbuiltin("tensor-slice", 4, 4, b_tensor_slice,
             "(tensor-slice T AXIS START END): elements START..END-1 along AXIS.");
});

}  // namespace
}  // namespace kiln

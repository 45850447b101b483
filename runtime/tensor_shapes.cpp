// tensor_shapes.cpp — shape rules of the shape-changing tensor builtins (tensor_shapes.h).
#include "runtime/tensor_shapes.h"

#include <fmt/format.h>

#include <cmath>

#include "runtime/args.h"
#include "runtime/error.h"
#include "runtime/printer.h"

namespace kiln {

std::string describe_shape(const Shape &s) {
  if (s.rank == 0) return "a scalar tensor";
  return fmt::format("a rank-{} tensor ({})", s.rank, shape_string(s));
}

void transpose_permutation(int argc, Value axes, const Shape &s, int *perm) {
  if (argc == 1) {
    if (s.rank != 2) throw_errorf("transpose: argument 1 must be a rank-2 tensor, got {}", describe_shape(s));
    perm[0] = 1;
    perm[1] = 0;
    return;
  }
  bool ok = list_length(axes) == s.rank;
  bool seen[kMaxRank] = {};
  int i = 0;
  for (Value p = axes; ok && p != NIL; p = cdr(p), i++) {
    Value x = car(p);
    if (!is_int(x) || int_of(x) < 0 || int_of(x) >= s.rank || seen[int_of(x)]) {
      ok = false;
    } else {
      seen[int_of(x)] = true;
      perm[i] = int(int_of(x));
    }
  }
  if (!ok)
    throw_errorf("transpose: axes {} are not a permutation of 0..{} for {}", error_value_string(axes),
                 s.rank - 1, describe_shape(s));
}

int tensor_axis(const char *who, int pos, Value axis, const Shape &s) {
  int64_t a = arg_int(who, pos, axis);
  int64_t r = a < 0 ? a + s.rank : a;
  if (r < 0 || r >= s.rank) throw_errorf("{}: axis {} out of range for {}", who, a, describe_shape(s));
  return int(r);
}

Shape slice_shape(const Shape &s, Value axis, Value start, Value end, int &axis_out, int64_t &start_out) {
  if (s.rank == 0) throw_errorf("tensor-slice: cannot slice a scalar tensor");
  int a = tensor_axis("tensor-slice", 2, axis, s);
  int64_t from = arg_int("tensor-slice", 3, start);
  int64_t to = arg_int("tensor-slice", 4, end);
  if (from < 0 || to > s.dim[a] || from >= to)
    throw_errorf("tensor-slice: bounds {}..{} invalid for axis {} of length {} (need 0 <= START < END <= {})",
                 from, to, a, s.dim[a], s.dim[a]);
  Shape os = s;
  os.dim[a] = to - from;
  axis_out = a;
  start_out = from;
  return os;
}

Shape concat_shape(const Shape *shapes, int64_t count, Value axis, int &axis_out) {
  const Shape &first = shapes[0];
  if (first.rank == 0) throw_errorf("concat: cannot concatenate scalar tensors");
  int a = axis == NOVALUE ? 0 : tensor_axis("concat", 2, axis, first);
  Shape os = first;
  os.dim[a] = 0;
  for (int64_t k = 0; k < count; k++) {
    const Shape &s = shapes[k];
    bool ok = s.rank == first.rank;
    for (int i = 0; ok && i < s.rank; i++)
      if (i != a && s.dim[i] != first.dim[i]) ok = false;
    if (!ok)
      throw_errorf("concat: shapes {} and {} differ outside axis {}", shape_string(first), shape_string(s),
                   a);
    os.dim[a] += s.dim[a];
  }
  axis_out = a;
  return os;
}

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

Shape reshape_shape(const Shape &from, Value spec) {
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
  int64_t size = from.size();
  if (infer >= 0) {
    if (overflow || known > size || size % known != 0)
      throw_errorf("reshape: cannot reshape {} ({} elements) into {}", shape_string(from), size, wanted);
    s.dim[infer] = size / known;
  } else if (overflow || known != size) {
    throw_errorf("reshape: cannot reshape {} ({} elements) into {} ({} elements)", shape_string(from), size,
                 wanted, overflow ? std::string("too many") : std::to_string(known));
  }
  return s;
}

Shape matmul_shape(const Shape &as, const Shape &bs, MatmulDims *dims) {
  for (int i = 0; i < 2; i++) {
    const Shape &s = i ? bs : as;
    if (s.rank < 1)
      throw_errorf("matmul: argument {} must be a tensor of rank 1 or more, got {}", i + 1,
                   describe_shape(s));
  }
  // A rank-1 left operand is a 1 x k row, a rank-1 right operand a k x 1 column.
  int64_t m = as.rank >= 2 ? as.dim[as.rank - 2] : 1, k = as.dim[as.rank - 1];
  int64_t kb = bs.rank >= 2 ? bs.dim[bs.rank - 2] : bs.dim[0], n = bs.rank >= 2 ? bs.dim[bs.rank - 1] : 1;
  if (k != kb)
    throw_errorf("matmul: inner dimensions differ ({} and {})", shape_string(as), shape_string(bs));
  Shape ab, bb, batch;
  for (int i = 0; i + 2 < as.rank; i++) ab.dim[ab.rank++] = as.dim[i];
  for (int i = 0; i + 2 < bs.rank; i++) bb.dim[bb.rank++] = bs.dim[i];
  if (!broadcast_shapes(ab, bb, batch))
    throw_errorf("matmul: batch dimensions of {} and {} do not broadcast", shape_string(as),
                 shape_string(bs));
  if (dims) *dims = MatmulDims{ab, bb, batch, m, k, n};
  Shape os = batch;
  if (as.rank >= 2) os.dim[os.rank++] = m;
  if (bs.rank >= 2) os.dim[os.rank++] = n;
  return os;
}

void concat_element_error(int64_t k, Value v) {
  throw_errorf("concat: element {} of argument 1 must be a tensor, got {}", k, error_value_string(v));
}

Shape reduced_shape(const Shape &s, int axis, bool keepdims) {
  Shape os;
  for (int i = 0; i < s.rank; i++) {
    if (i != axis) os.dim[os.rank++] = s.dim[i];
    else if (keepdims) os.dim[os.rank++] = 1;
  }
  return os;
}

Shape take_shape(const Shape &x, const Shape &indices, int axis) {
  int rank = x.rank - 1 + indices.rank;
  if (rank > kMaxRank)
    throw_errorf("tensor-take: the result would have rank {}, above the maximum {}", rank, kMaxRank);
  Shape os;
  for (int i = 0; i < axis; i++) os.dim[os.rank++] = x.dim[i];
  for (int i = 0; i < indices.rank; i++) os.dim[os.rank++] = indices.dim[i];
  for (int i = axis + 1; i < x.rank; i++) os.dim[os.rank++] = x.dim[i];
  return os;
}

std::string index_string(double index) {
  // The user wrote an integer; tensors hold it as a float.
  if (std::isfinite(index) && index == std::floor(index) && std::fabs(index) < 1e15)
    return fmt::format("{:.0f}", index);
  return format_double(index);
}

const char *index_use_name(IndexUse use) {
  switch (use) {
  case IndexUse::Take: return "tensor-take";
  case IndexUse::OneHot: return "one-hot";
  case IndexUse::CrossEntropy: return "cross-entropy";
  }
  return "tensor-take";
}

int index_use_position(IndexUse use) { return use == IndexUse::OneHot ? 1 : 2; }

IndexUse labels_use(Value who) {
  if (is_string(who)) {
    std::string_view s = string_view_of(who);
    if (s == "one-hot") return IndexUse::OneHot;
    if (s == "cross-entropy") return IndexUse::CrossEntropy;
  }
  type_error("%one-hot", 1, "\"one-hot\" or \"cross-entropy\"", who);
}

void take_index_error(IndexUse use, double index, int axis, int64_t len) {
  if (use == IndexUse::Take)
    throw_errorf("tensor-take: index {} is not an integer in [0, {}) (axis {})", index_string(index), len,
                 axis);
  throw_errorf("{}: label {} is not an integer in [0, {})", index_use_name(use), index_string(index), len);
}

}  // namespace kiln

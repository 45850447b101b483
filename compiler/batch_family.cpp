// batch_family.cpp — finding a batch family from two traces, checking a third
// trace against it, and which nodes the lowerings can give a run-time n.
#include "compiler/batch_family.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace kiln {

namespace {

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// Everything of a node but its shape and scalar value.
bool same_structure(const GraphNode &x, const GraphNode &y) {
  return x.op == y.op && x.is_number == y.is_number && x.keepdims == y.keepdims && x.axis == y.axis &&
         x.index_use == y.index_use && x.offset == y.offset && x.in[0] == y.in[0] && x.in[1] == y.in[1] &&
         x.in[2] == y.in[2] && x.param_index == y.param_index &&
         std::memcmp(x.perm, y.perm, sizeof x.perm) == 0 && x.shape.rank == y.shape.rank &&
         (x.const_data == nullptr) == (y.const_data == nullptr);
}

bool same_outputs(const Graph &a, const Graph &b) {
  if (a.size() != b.size() || a.num_params != b.num_params || a.outputs.size() != b.outputs.size())
    return false;
  for (size_t o = 0; o < a.outputs.size(); o++)
    if (a.outputs[o].node != b.outputs[o].node || a.outputs[o].as_number != b.outputs[o].as_number)
      return false;
  return true;
}

// A scalar constant of value scale * rows, for an integer scale >= 1.
int64_t size_scale(double v, int64_t rows) {
  if (!(v >= double(rows)) || v > 9007199254740992.0 || v != std::floor(v)) return 0;
  int64_t x = int64_t(v);
  return x % rows == 0 ? x / rows : 0;
}

// A constant of value c / (k * rows): k one of `per_row` (the batched nodes'
// sizes per row), c within two ulps of x * k * rows_a, checked in bits at both
// sizes. Two sizes may admit several (k, c) (1/(7n) and (1/7)/n can agree at
// both); the shortest c wins (fewest mantissa bits: 1.0 over 0.142857...), the
// numerator a loss's seed or scale is written with. Members are checked in
// bits anyway (in_batch_family).
bool size_quotient(double xa, int64_t rows_a, double xb, int64_t rows_b, const std::vector<int64_t> &per_row,
                   int64_t &k_out, double &c_out) {
  if (!std::isfinite(xa) || xa == 0.0) return false;
  auto mantissa_zeros = [](double c) {
    uint64_t bits;
    std::memcpy(&bits, &c, sizeof bits);
    bits &= (uint64_t(1) << 52) - 1;
    return bits == 0 ? 52 : __builtin_ctzll(bits);
  };
  bool found = false;
  for (int64_t k : per_row) {
    double c = xa * double(k * rows_a);
    for (int step = 0; step < 2; step++) c = std::nextafter(c, -INFINITY);
    for (int t = 0; t < 5; t++, c = std::nextafter(c, INFINITY)) {
      if (c == 0.0 || !same_bits(c / double(k * rows_a), xa) || !same_bits(c / double(k * rows_b), xb))
        continue;
      if (!found || mantissa_zeros(c) > mantissa_zeros(c_out)) {
        k_out = k;
        c_out = c;
        found = true;
      }
    }
  }
  return found;
}

}  // namespace

bool find_batch_family(const Graph &a, int64_t rows_a, const Graph &b, int64_t rows_b, BatchFamily &out) {
  out = BatchFamily{};
  if (rows_b < 1 || rows_b >= rows_a || !same_outputs(a, b)) return false;
  BatchFamily f;
  f.rows = rows_a;
  f.axis.assign(size_t(a.size()), -1);
  f.scale.assign(size_t(a.size()), 0);
  f.numer.assign(size_t(a.size()), 0.0);
  std::vector<int32_t> derived;  // scalar constants that differ: size-derived, or no family
  std::vector<int64_t> per_row{1};
  bool any_param = false;
  for (int32_t i = 0; i < a.size(); i++) {
    const GraphNode &x = a[i], &y = b[i];
    if (!same_structure(x, y)) return false;
    for (int d = 0; d < x.shape.rank; d++) {
      if (x.shape.dim[d] == y.shape.dim[d]) continue;
      if (f.axis[size_t(i)] >= 0 || x.shape.dim[d] != rows_a || y.shape.dim[d] != rows_b) return false;
      f.axis[size_t(i)] = int8_t(d);
    }
    if (x.op == Op::Const && !x.const_data && !same_bits(x.scalar, y.scalar)) derived.push_back(i);
    if (x.op == Op::Param && f.axis[size_t(i)] >= 0) any_param = true;
    if (f.axis[size_t(i)] >= 0) {
      int64_t k = x.size() / rows_a;
      if (std::find(per_row.begin(), per_row.end(), k) == per_row.end()) per_row.push_back(k);
    }
  }
  for (int32_t i : derived) {
    double xa = a[i].scalar, xb = b[i].scalar;
    int64_t k = size_scale(xa, rows_a);
    if (k != 0 && size_scale(xb, rows_b) == k) {
      f.scale[size_t(i)] = k;
    } else if (!size_quotient(xa, rows_a, xb, rows_b, per_row, f.scale[size_t(i)], f.numer[size_t(i)])) {
      return false;
    }
  }
  if (!any_param) return false;
  out = std::move(f);
  return true;
}

bool in_batch_family(const Graph &fg, const BatchFamily &f, const Graph &g, int64_t n) {
  if (f.rows == 0 || n < 1 || n > f.rows || !same_outputs(fg, g)) return false;
  for (int32_t i = 0; i < fg.size(); i++) {
    const GraphNode &x = fg[i], &y = g[i];
    if (!same_structure(x, y)) return false;
    for (int d = 0; d < x.shape.rank; d++) {
      int64_t want = d == f.axis[size_t(i)] ? n : x.shape.dim[d];
      if (y.shape.dim[d] != want) return false;
    }
    if (x.op == Op::Const && !x.const_data) {
      if (!same_bits(y.scalar, f.scale[size_t(i)] ? f.value_at(i, n) : x.scalar)) return false;
    }
  }
  return true;
}

bool family_lowerable(const Graph &g, const KernelLayout &L, const BatchFamily &f, std::string *why) {
  auto no = [&](int32_t i, const char *what) {
    if (why) *why = fmt::format("node {} ({}): {}", i, op_name(g[i].op), what);
    return false;
  };
  auto lead = [&](int32_t i) { return f.axis[size_t(i)] == 0; };
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    int ar = op_arity(n.op);
    bool any_in = false;
    for (int q = 0; q < ar; q++) any_in |= f.batched(n.in[q]);
    bool out = f.batched(i);
    if (f.scale[size_t(i)] != 0) continue;  // a size-derived constant: its readers are checked
    for (int q = 0; q < ar; q++)
      if (f.scale[size_t(n.in[q])] != 0 && n.op == Op::Allreduce)
        return no(i, "reads a size-derived constant");
    if (!out && !any_in) continue;
    if (out && !lead(i)) {
      // Only a rank-2 transpose a matmul reads in place has n on its last axis.
      if (n.op == Op::Transpose && L.read_in_place[size_t(i)] && lead(n.in[0])) continue;
      return no(i, "the batch is not its leading axis");
    }
    for (int q = 0; q < ar; q++)
      if (f.batched(n.in[q]) && !lead(n.in[q]) && !(n.op == Op::Matmul && q == 0))
        return no(i, "an operand has the batch on a later axis");
    switch (n.op) {
    case Op::Param:
    case Op::Const: continue;
    case Op::Select:
    case Op::BroadcastTo:
      if (!out) return no(i, "batched operand, fixed result");
      continue;
    case Op::Sum:
    case Op::Mean: continue;
    case Op::SumAxis:
    case Op::MeanAxis:
    case Op::MaxAxis:
      if (n.axis < 0 || out != (n.axis > 0)) return no(i, "unsupported axis");
      continue;
    case Op::SumTo: continue;
    case Op::Matmul: {
      if (n.shape.rank != 2) return no(i, "batched matmul items");
      bool a_rows = lead(n.in[0]) && f.batched(n.in[0]);
      if (out != a_rows) return no(i, "rows do not follow the left operand");
      // The inner length: the right operand's rows, or the left operand's
      // columns (a transpose read in place of a batched matrix).
      bool b_rows = f.batched(n.in[1]);
      int32_t a = n.in[0];
      bool a_cols = f.batched(a) && f.axis[size_t(a)] == 1;
      if (b_rows != a_cols) return no(i, "inner lengths differ");
      if (a_cols && a_rows) return no(i, "n x n product");
      continue;
    }
    case Op::Reshape:
      if (!out || !any_in) return no(i, "reshape across the batch axis");
      continue;
    case Op::Argmax:
    case Op::MaxMask:
      if (n.axis < 1) return no(i, "along the batch axis");
      continue;
    case Op::Take:  // rows of a fixed table at n indices (one-hot)
      if (n.axis != 0 || f.batched(n.in[0]) || !f.batched(n.in[1]) || !out) return no(i, "unsupported take");
      continue;
    case Op::ScatterAdd:  // its gradient: n rows added into a fixed table
      if (n.axis != 0 || !f.batched(n.in[0]) || !f.batched(n.in[1]) || out)
        return no(i, "unsupported scatter");
      continue;
    case Op::Transpose:
      return no(i, "a materialised transpose");
    KILN_BINARY_OP_CASES:
    KILN_UNARY_OP_CASES:
      if (!out) return no(i, "batched operand, fixed result");
      continue;
    case Op::Max:
    case Op::Slice:
    case Op::Pad:
    case Op::Concat:
    case Op::Random:
    case Op::Allreduce:
    case Op::Loop: return no(i, "no run-time length in its lowering");
    }
  }
  return true;
}

std::string batch_family_key(const BatchFamily &f) {
  if (f.rows == 0) return "";
  std::string s = fmt::format("batch family {}:", f.rows);
  for (size_t i = 0; i < f.axis.size(); i++) {
    if (f.axis[i] >= 0) s += fmt::format(" {}@{}", i, int(f.axis[i]));
    if (f.scale[i] && f.numer[i] == 0.0) s += fmt::format(" {}={}n", i, f.scale[i]);
    if (f.scale[i] && f.numer[i] != 0.0) s += fmt::format(" {}={:a}/{}n", i, f.numer[i], f.scale[i]);
  }
  return s + "\n";
}

bool batch_families_enabled() {
  static const bool on = [] {
    const char *s = std::getenv("KILN_JIT_FAMILIES");
    return !(s && std::strcmp(s, "off") == 0);
  }();
  return on;
}

}  // namespace kiln

// autodiff.cpp — reverse-mode autodiff over a Graph: the structural ops' gradient
// rules, and the element-wise ops' recorded from their derivatives.
//
// An element-wise op's derivative sits beside its formula
// (runtime/elementwise_formulas.h, unary_grad / binary_grad), a template this
// file instantiates on GraphKit, which records nodes; this file has no case of
// its own for any element-wise op.
//
// Invariant: the adjoint of node i is complete before the rule for node i runs,
// because nodes are visited in reverse topological order and every
// contribution goes to an operand (a lower index). Only nodes that depend on a
// param get adjoints; constants and masks never do.
#include "compiler/autodiff.h"

#include <algorithm>

#include "compiler/collective.h"
#include "compiler/loop.h"
#include "runtime/elementwise_formulas.h"
#include "runtime/error.h"

namespace kiln {
namespace {

// The gradient kit of runtime/elementwise_formulas.h: a value is a node of the
// graph being differentiated and each operation records one, hash-consed, so a
// subexpression that both operands' rules build (max's mask) is one node.
struct GraphKit {
  struct D {
    Graph *g;
    int32_t i;
  };
  static constexpr const char *kWho = "graph-grad";
  static D bin(Op op, const D &a, const D &b) { return {a.g, a.g->binary(kWho, op, a.i, b.i)}; }
  static D lit(const D &like, double k) { return {like.g, like.g->constant(k, true)}; }
  static D select(const D &m, const D &a, const D &b) { return {m.g, m.g->select(kWho, m.i, a.i, b.i)}; }
  static D unary(UnaryOp op, const D &x) { return {x.g, x.g->unary(unary_op(op), x.i)}; }
  static D exp(const D &x) { return unary(UnaryOp::Exp, x); }
  static D log(const D &x) { return unary(UnaryOp::Log, x); }
  static D sin(const D &x) { return unary(UnaryOp::Sin, x); }
  static D cos(const D &x) { return unary(UnaryOp::Cos, x); }
  static D pow(const D &a, const D &b) { return bin(Op::Pow, a, b); }
  static D lt(const D &a, const D &b) { return bin(Op::Less, a, b); }
  static D le(const D &a, const D &b) { return bin(Op::LessEqual, a, b); }
  static D gt(const D &a, const D &b) { return bin(Op::Greater, a, b); }
  static D ge(const D &a, const D &b) { return bin(Op::GreaterEqual, a, b); }
  static D eq(const D &a, const D &b) { return bin(Op::Equal, a, b); }
};
using GD = GraphKit::D;
// Every combination, inline: a derivative that needs one more finds it here.
inline GD operator+(const GD &a, const GD &b) { return GraphKit::bin(Op::Add, a, b); }
inline GD operator-(const GD &a, const GD &b) { return GraphKit::bin(Op::Sub, a, b); }
inline GD operator*(const GD &a, const GD &b) { return GraphKit::bin(Op::Mul, a, b); }
inline GD operator/(const GD &a, const GD &b) { return GraphKit::bin(Op::Div, a, b); }
inline GD operator-(const GD &a) { return GraphKit::unary(UnaryOp::Neg, a); }
inline GD operator+(double k, const GD &b) { return GraphKit::lit(b, k) + b; }
inline GD operator-(double k, const GD &b) { return GraphKit::lit(b, k) - b; }
inline GD operator*(double k, const GD &b) { return GraphKit::lit(b, k) * b; }
inline GD operator/(double k, const GD &b) { return GraphKit::lit(b, k) / b; }
inline GD operator+(const GD &a, double k) { return a + GraphKit::lit(a, k); }
inline GD operator-(const GD &a, double k) { return a - GraphKit::lit(a, k); }
inline GD operator*(const GD &a, double k) { return a * GraphKit::lit(a, k); }
inline GD operator/(const GD &a, double k) { return a / GraphKit::lit(a, k); }

struct Builder {
  Graph &g;
  std::vector<int32_t> &adjoint;
  std::vector<char> &needs;  // depends on a param

  static constexpr const char *kWho = "graph-grad";

  int32_t c(double x) { return g.constant(x, true); }
  int32_t bin(Op op, int32_t a, int32_t b) { return g.binary(kWho, op, a, b); }
  int32_t sel(int32_t m, int32_t a, int32_t b) { return g.select(kWho, m, a, b); }
  // By value: an argument next to a recording call must not point into g.nodes,
  // which that call may reallocate (argument order is unspecified).
  Shape shape(int32_t i) const { return g[i].shape; }

  // Adds `contrib` (already shaped like node `to`) to the adjoint of `to`.
  void give(int32_t to, int32_t contrib) {
    if (!needs[size_t(to)]) return;
    int32_t &a = adjoint[size_t(to)];
    a = a < 0 ? contrib : bin(Op::Add, a, contrib);
  }
  // Contribution computed at the broadcast shape, summed back to the operand's.
  void give_sum(int32_t to, int32_t contrib) {
    if (needs[size_t(to)]) give(to, g.sum_to(contrib, shape(to)));
  }

  // `g` reshaped so a reduction along `axis` (without keepdims) broadcasts back.
  int32_t keep_axis(const GraphNode &n, int32_t grad) {
    if (n.keepdims) return grad;
    Shape s = shape(n.in[0]);
    s.dim[n.axis] = 1;
    return g.reshape(grad, s, false);
  }

  // An element-wise op's rule: its derivative (formula::unary_grad / binary_grad)
  // on GraphKit. Dispatched by a switch generated from the rows; a row that says
  // no gradient flows has no derivative to instantiate.
  template <UnaryOp OP> void unary_rule(int32_t i, int32_t gr) {
    if constexpr (row(OP).differentiable) {
      const GD x{&g, g[i].in[0]}, out{&g, i}, grad{&g, gr};
      GD dx = grad;
      formula::unary_grad<OP, GraphKit>(x, out, grad, dx);
      give(x.i, dx.i);
    }
  }
  void unary_rule(UnaryOp op, int32_t i, int32_t gr) {
    switch (op) {
#define KILN_X(e, ...) \
  case UnaryOp::e: unary_rule<UnaryOp::e>(i, gr); return;
      KILN_UNARY_OPS(KILN_X)
#undef KILN_X
    }
  }
  // Each operand that needs it gets its contribution, x's first, summed back
  // from the broadcast shape to its own.
  template <BinaryOp OP> void binary_rule(int32_t i, int32_t gr) {
    if constexpr (row(OP).differentiable) {
      const GD x{&g, g[i].in[0]}, y{&g, g[i].in[1]}, out{&g, i}, grad{&g, gr};
      if (needs[size_t(x.i)]) {
        GD d = grad;
        formula::binary_grad<OP, 0, GraphKit>(x, y, out, grad, d);
        give_sum(x.i, d.i);
      }
      if (needs[size_t(y.i)]) {
        GD d = grad;
        formula::binary_grad<OP, 1, GraphKit>(x, y, out, grad, d);
        give_sum(y.i, d.i);
      }
    }
  }
  void binary_rule(BinaryOp op, int32_t i, int32_t gr) {
    switch (op) {
#define KILN_X(e, ...) \
  case BinaryOp::e: binary_rule<BinaryOp::e>(i, gr); return;
      KILN_BINARY_ARITH_OPS(KILN_X) KILN_COMPARE_OPS(KILN_X)
#undef KILN_X
    }
  }

  void rule(int32_t i) {
    const GraphNode n = g[i];  // a copy: recording may grow g.nodes
    int32_t gr = adjoint[size_t(i)];
    int32_t a = n.in[0], b = n.in[1];
    switch (n.op) {
    case Op::Param:
    case Op::Const:
      return;
    // Element-wise ops: each one's derivative is its formula's neighbour in
    // runtime/elementwise_formulas.h, recorded here through GraphKit. Those that
    // are not differentiable (comparisons, relu-grad, stop-gradient) never get here:
    // append_vjp marks no node of theirs as needing a gradient.
    KILN_BINARY_OP_CASES:
      binary_rule(op_binary(n.op), i, gr);
      return;
    KILN_UNARY_OP_CASES:
      unary_rule(op_unary(n.op), i, gr);
      return;
    case Op::MaxMask:
    case Op::Argmax:
    case Op::Random: return;  // piecewise constant or random: no gradient
    case Op::Select: {
      int32_t zero = c(0.0);
      if (needs[size_t(b)]) give_sum(b, sel(a, gr, zero));
      if (needs[size_t(n.in[2])]) give_sum(n.in[2], sel(a, zero, gr));
      return;
    }
    case Op::Sum: give(a, g.broadcast_to(gr, shape(a))); return;
    case Op::Mean: give(a, g.broadcast_to(bin(Op::Div, gr, c(double(g[a].size()))), shape(a))); return;
    case Op::Max: give(a, sel(g.max_mask(a, -1), gr, c(0.0))); return;  // first maximal element
    case Op::SumAxis: give(a, g.broadcast_to(keep_axis(n, gr), shape(a))); return;
    case Op::MeanAxis:
      give(a, g.broadcast_to(bin(Op::Div, keep_axis(n, gr), c(double(shape(a).dim[n.axis]))), shape(a)));
      return;
    case Op::MaxAxis: give(a, sel(g.max_mask(a, n.axis), keep_axis(n, gr), c(0.0))); return;
    case Op::SumTo: give(a, g.broadcast_to(gr, shape(a))); return;
    case Op::BroadcastTo: give(a, g.sum_to(gr, shape(a))); return;
    case Op::Matmul: {
      // The last two axes swap; batch axes stay (a broadcast batch axis was a
      // BroadcastTo, whose rule sums the gradient back).
      int r = n.shape.rank, swap[kMaxRank];
      for (int k = 0; k < r; k++) swap[k] = k;
      std::swap(swap[r - 2], swap[r - 1]);
      if (needs[size_t(a)]) give(a, g.matmul(kWho, gr, g.transpose(b, swap)));
      if (needs[size_t(b)]) give(b, g.matmul(kWho, g.transpose(a, swap), gr));
      return;
    }
    case Op::Transpose: {
      int inverse[kMaxRank];
      for (int k = 0; k < n.shape.rank; k++) inverse[n.perm[k]] = k;
      give(a, g.transpose(gr, inverse));
      return;
    }
    case Op::Reshape: give(a, g.reshape(gr, shape(a), g[gr].is_number)); return;
    case Op::Slice: give(a, g.pad(gr, n.axis, n.offset, shape(a))); return;
    case Op::Pad: give(a, g.slice(gr, n.axis, n.offset, shape(a).dim[n.axis])); return;
    case Op::Concat: {
      int64_t la = shape(a).dim[n.axis];
      if (needs[size_t(a)]) give(a, g.slice(gr, n.axis, 0, la));
      if (needs[size_t(b)]) give(b, g.slice(gr, n.axis, la, shape(b).dim[n.axis]));
      return;
    }
    // The indices (b) are integers: nothing flows to them. A repeated index
    // gathers one entry several times, so its gradient adds them up.
    case Op::Take:
      if (needs[size_t(a)]) give(a, g.scatter_add(gr, b, n.axis, shape(a), n.index_use));
      return;
    case Op::ScatterAdd:
      if (needs[size_t(a)]) give(a, g.take(gr, b, n.axis, n.index_use));
      return;
    // Every process's loss counts (JAX's psum): d(sum_p L_p)/dx_r is the sum over
    // processes of the output's gradient, and 1/P of it for a mean. The backward
    // exchange gets a signature of its own, derived from the forward one, so every
    // process agrees on it.
    case Op::Allreduce:
      if (ReduceKind(n.axis) == ReduceKind::Max)
        throw_error("graph-grad: no gradient through mpi-allreduce 'max (only 'sum and 'mean)");
      give(a, g.allreduce(gr, n.axis, uint64_t(n.offset) * 0x9e3779b97f4a7c15ull + 1));
      return;
    case Op::Loop: {
      int32_t ga = -1, gb = -1;
      record_loop_gradient(g, i, gr, needs[size_t(a)], needs[size_t(b)], ga, gb);
      if (ga >= 0) give(a, ga);
      if (gb >= 0) give(b, gb);
      return;
    }
    }
  }
};

}  // namespace

std::vector<int32_t> append_vjp(Graph &g, const std::vector<int32_t> &outputs,
                                const std::vector<int32_t> &seeds, const std::vector<int32_t> &wrt) {
  const int32_t forward = g.size();
  std::vector<int32_t> adjoint(size_t(forward), -1);
  std::vector<char> needs(size_t(forward), 0);
  Builder bd{g, adjoint, needs};
  for (int32_t w : wrt) bd.needs[size_t(w)] = 1;
  for (int32_t i = 0; i < forward; i++) {
    const GraphNode &n = g[i];
    // Nothing flows through an op its row calls not differentiable: masks and
    // comparisons are piecewise constant, random numbers and stop-gradient cut it.
    if (!op_info(n.op).differentiable) continue;
    for (int k = 0; k < op_arity(n.op); k++)
      if (bd.needs[size_t(n.in[k])]) bd.needs[size_t(i)] = 1;
  }
  int32_t last = -1;
  for (size_t k = 0; k < outputs.size(); k++) {
    int32_t o = outputs[k];
    if (!bd.needs[size_t(o)]) continue;
    bd.give(o, seeds[k]);
    last = std::max(last, o);
  }
  for (int32_t i = last; i >= 0; i--)
    if (bd.needs[size_t(i)] && bd.adjoint[size_t(i)] >= 0) bd.rule(i);
  std::vector<int32_t> grads;
  grads.reserve(wrt.size());
  for (int32_t w : wrt) {
    // A copy: sum_to and broadcast_to below may grow g.nodes.
    const GraphNode n = g[w];
    int32_t adj = bd.adjoint[size_t(w)];
    if (adj >= 0 && g[adj].shape == n.shape) {
      grads.push_back(adj);
    } else {
      Shape s = n.shape;
      grads.push_back(adj >= 0 ? g.sum_to(adj, s) : g.broadcast_to(g.constant(0.0, n.is_number), s));
    }
  }
  return grads;
}

std::vector<int32_t> append_gradients(Graph &g, int32_t loss, const std::vector<int32_t> &wrt) {
  return append_vjp(g, {loss}, {g.constant(1.0, true)}, wrt);
}

std::vector<int32_t> append_gradients(Graph &g, int32_t loss) {
  std::vector<int32_t> params;
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    if (n.op != Op::Param) continue;
    if (size_t(n.param_index) >= params.size()) params.resize(size_t(n.param_index) + 1, -1);
    params[size_t(n.param_index)] = i;
  }
  return append_gradients(g, loss, params);
}

}  // namespace kiln

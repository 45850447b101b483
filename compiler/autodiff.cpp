// autodiff.cpp — the table of gradient rules, one per primitive op.
//
// Invariant: the adjoint of node i is complete before the rule for node i runs,
// because nodes are visited in reverse topological order and every
// contribution goes to an operand (a lower index). Only nodes that depend on a
// param get adjoints; constants and masks never do.
#include "compiler/autodiff.h"

#include <algorithm>

#include "compiler/collective.h"
#include "compiler/loop.h"
#include "runtime/error.h"
#include "runtime/gelu_formula.h"

namespace kiln {
namespace {

struct Builder {
  Graph &g;
  std::vector<int32_t> &adjoint;
  std::vector<char> &needs;  // depends on a param

  static constexpr const char *kWho = "graph-grad";

  int32_t c(double x) { return g.constant(x, true); }
  int32_t bin(Op op, int32_t a, int32_t b) { return g.binary(kWho, op, a, b); }
  int32_t un(Op op, int32_t x) { return g.unary(op, x); }
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

  void rule(int32_t i) {
    const GraphNode n = g[i];  // a copy: recording may grow g.nodes
    int32_t gr = adjoint[size_t(i)];
    int32_t a = n.in[0], b = n.in[1];
    switch (n.op) {
    case Op::Param:
    case Op::Const: return;
    case Op::Add:
      give_sum(a, gr);
      give_sum(b, gr);
      return;
    case Op::Sub:
      give_sum(a, gr);
      if (needs[size_t(b)]) give_sum(b, un(Op::Neg, gr));
      return;
    case Op::Mul:
      if (needs[size_t(a)]) give_sum(a, bin(Op::Mul, gr, b));
      if (needs[size_t(b)]) give_sum(b, bin(Op::Mul, gr, a));
      return;
    case Op::Div:
      // d(a/b)/da = 1/b; d(a/b)/db = -a/b^2, computed as PyTorch does: -g * ((a/b) / b),
      // the forward quotient divided once more. (-g * a) / (b * b) would give NaN or
      // -inf where b*b underflows (|b| < 1.5e-154) although the quotient is finite.
      if (needs[size_t(a)]) give_sum(a, bin(Op::Div, gr, b));
      if (needs[size_t(b)]) give_sum(b, bin(Op::Mul, un(Op::Neg, gr), bin(Op::Div, i, b)));
      return;
    case Op::Pow: {
      // PyTorch's rules, zeros included: d(a^b)/da = b * a^(b-1), but 0 where b == 0
      // (0 * 0^-1 would be NaN); d(a^b)/db = a^b * log a, but 0 where a == 0 and b >= 0
      // (0 * log 0 would be NaN or -inf).
      int32_t zero = c(0.0);
      if (needs[size_t(a)]) {
        int32_t da = bin(Op::Mul, b, bin(Op::Pow, a, bin(Op::Sub, b, c(1.0))));
        // Outside the product, as PyTorch's pow(x, 0) backward: zeros even for a NaN gr.
        give_sum(a, sel(bin(Op::Equal, b, zero), zero, bin(Op::Mul, gr, da)));
      }
      if (needs[size_t(b)]) {
        int32_t at_zero = bin(Op::Mul, bin(Op::Equal, a, zero), bin(Op::GreaterEqual, b, zero));
        give_sum(b, bin(Op::Mul, gr, sel(at_zero, zero, bin(Op::Mul, i, un(Op::Log, a)))));
      }
      return;
    }
    case Op::Maximum:
    case Op::Minimum: {
      // The gradient goes to the operand the forward kernel picked: the first on
      // ties and when it is NaN (a == a is false only for NaN).
      int32_t zero = c(0.0);
      int32_t wins = bin(n.op == Op::Maximum ? Op::GreaterEqual : Op::LessEqual, a, b);
      int32_t first = sel(bin(Op::Equal, a, a), wins, c(1.0));
      if (needs[size_t(a)]) give_sum(a, sel(first, gr, zero));
      if (needs[size_t(b)]) give_sum(b, sel(first, zero, gr));
      return;
    }
    case Op::Less:
    case Op::LessEqual:
    case Op::Greater:
    case Op::GreaterEqual:
    case Op::Equal:
    case Op::ReluGrad:
    case Op::MaxMask:
    case Op::Argmax:
    case Op::Random: return;        // piecewise constant: zero gradient
    case Op::StopGradient: return;  // by definition
    case Op::Neg: give(a, un(Op::Neg, gr)); return;
    case Op::Exp: give(a, bin(Op::Mul, gr, i)); return;
    case Op::Log: give(a, bin(Op::Div, gr, a)); return;
    case Op::Sqrt: give(a, bin(Op::Div, gr, bin(Op::Mul, c(2.0), i))); return;
    case Op::Tanh: give(a, bin(Op::Mul, gr, bin(Op::Sub, c(1.0), bin(Op::Mul, i, i)))); return;
    case Op::Sigmoid: give(a, bin(Op::Mul, bin(Op::Mul, gr, bin(Op::Sub, c(1.0), i)), i)); return;
    case Op::Relu: give(a, sel(un(Op::ReluGrad, a), gr, c(0.0))); return;  // relu'(0) = 0
    case Op::Abs:
      // sign(a) = (a > 0) - (a < 0); abs'(0) = 0 as in PyTorch.
      give(a, bin(Op::Mul, gr, bin(Op::Sub, bin(Op::Greater, a, c(0.0)), bin(Op::Less, a, c(0.0)))));
      return;
    case Op::Softplus:  // softplus' = sigmoid, and 1 where the forward is x itself
      give(a, bin(Op::Mul, gr, sel(bin(Op::Greater, a, c(20.0)), c(1.0), un(Op::Sigmoid, a))));
      return;
    case Op::Gelu: {
      // PyTorch's gelu(approximate='tanh') backward, its terms in its order:
      // g * (0.5 (1 + t) + (0.5 x) (1 - t^2) kBeta (1 + 3 kKappa x^2)), t the forward's tanh.
      using namespace gelu_formula;
      int32_t x2 = bin(Op::Mul, a, a);
      int32_t inner = bin(Op::Mul, c(kBeta), bin(Op::Add, a, bin(Op::Mul, c(kKappa), bin(Op::Mul, x2, a))));
      int32_t t = un(Op::Tanh, inner);
      int32_t left = bin(Op::Mul, c(0.5), a);
      int32_t left_d = bin(Op::Mul, c(0.5), bin(Op::Add, c(1.0), t));
      int32_t right_d =
          bin(Op::Mul, bin(Op::Mul, bin(Op::Mul, left, bin(Op::Sub, c(1.0), bin(Op::Mul, t, t))), c(kBeta)),
              bin(Op::Add, c(1.0), bin(Op::Mul, c(3.0 * kKappa), x2)));
      give(a, bin(Op::Mul, gr, bin(Op::Add, left_d, right_d)));
      return;
    }
    case Op::Sin: give(a, bin(Op::Mul, gr, un(Op::Cos, a))); return;
    case Op::Cos: give(a, bin(Op::Mul, gr, un(Op::Neg, un(Op::Sin, a)))); return;
    case Op::Tan: give(a, bin(Op::Mul, gr, bin(Op::Add, c(1.0), bin(Op::Mul, i, i)))); return;
    case Op::Square: give(a, bin(Op::Mul, gr, bin(Op::Mul, c(2.0), a))); return;
    case Op::Reciprocal: give(a, bin(Op::Mul, un(Op::Neg, gr), bin(Op::Mul, i, i))); return;
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

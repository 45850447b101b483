// optimise.cpp — constant folding, exact simplifications, dead-node removal.
//
// Invariant: see optimise.h — every rewrite is bit-exact. Folding is limited to
// nodes whose result is no larger than their largest operand, so a broadcast of
// a constant (a gradient seed spread over a big tensor) stays one cheap node
// instead of becoming a large literal.
#include "compiler/optimise.h"

#include <algorithm>
#include <vector>

#include "compiler/graph_eval.h"
#include "compiler/loop.h"
#include "runtime/error.h"
#include "runtime/tensor.h"

namespace kiln {
namespace {

bool is_const(const Graph &g, int32_t i) { return g[i].op == Op::Const; }

// A constant whose every element equals x.
bool const_all(const Graph &g, int32_t i, double x) {
  const GraphNode &n = g[i];
  if (n.op != Op::Const) return false;
  for (int64_t k = 0, e = n.size(); k < e; k++)
    if (!(n.const_at(k) == x)) return false;
  return true;
}

bool same_result(const GraphNode &kept, const GraphNode &n) {
  return kept.shape == n.shape && kept.is_number == n.is_number;
}

// The element-wise ops' simplifications (a new element-wise op has none unless it
// is added here; the switch below reaches this through the case ranges).
int32_t simplify_elementwise(const Graph &out, const GraphNode &n) {
  if (n.op == Op::Mul) {
    if (const_all(out, n.in[1], 1.0) && same_result(out[n.in[0]], n)) return n.in[0];
    if (const_all(out, n.in[0], 1.0) && same_result(out[n.in[1]], n)) return n.in[1];
  } else if (n.op == Op::Div) {
    if (const_all(out, n.in[1], 1.0) && same_result(out[n.in[0]], n)) return n.in[0];
  } else if (n.op == Op::StopGradient) {  // the identity once every gradient is recorded (optimise.h)
    if (same_result(out[n.in[0]], n)) return n.in[0];
  } else if (n.op == Op::Neg) {
    const GraphNode &x = out[n.in[0]];
    if (x.op == Op::Neg && same_result(out[x.in[0]], n)) return x.in[0];
  }
  return -1;
}

// Returns the node to use instead of `n` (already remapped into `out`), or -1.
int32_t simplify(const Graph &out, const GraphNode &n) {
  switch (n.op) {
  KILN_BINARY_OP_CASES:
  KILN_UNARY_OP_CASES:
    return simplify_elementwise(out, n);
  case Op::Select: {
    // A mask that is constant everywhere picks one branch for every element.
    const GraphNode &c = out[n.in[0]];
    if (c.op != Op::Const) return -1;
    bool all_true = true, all_false = true;
    for (int64_t k = 0, e = c.size(); k < e; k++) {
      if (c.const_at(k) != 0) all_false = false;
      else all_true = false;
    }
    int32_t pick = all_true ? n.in[1] : all_false ? n.in[2] : -1;
    if (pick >= 0 && same_result(out[pick], n)) return pick;
    return -1;
  }
  case Op::Param:
  case Op::Const:
  case Op::Sum:
  case Op::Mean:
  case Op::Max:
  case Op::SumAxis:
  case Op::MeanAxis:
  case Op::MaxAxis:
  case Op::SumTo:
  case Op::BroadcastTo:
  case Op::Matmul:
  case Op::Transpose:
  case Op::Reshape:
  case Op::MaxMask:
  case Op::Slice:
  case Op::Pad:
  case Op::Concat:
  case Op::Argmax:
  case Op::Take:
  case Op::ScatterAdd:
  case Op::Random:
  case Op::Allreduce:
  case Op::Loop: return -1;
  }
  return -1;
}

int32_t fold(Graph &out, const GraphNode &n) {
  int arity = op_arity(n.op);
  int64_t largest = 1;
  const double *in[3];
  for (int k = 0; k < arity; k++) {
    largest = std::max(largest, out[n.in[k]].size());
    const GraphNode &c = out[n.in[k]];
    in[k] = c.const_data ? c.const_data : &c.scalar;
  }
  if (n.size() > largest) return -1;
  // A bad index stays unfolded: it is reported when the graph runs, as the
  // eager call reports it.
  if (n.shape.rank == 0) {
    double x;
    if (!eval_node(out, n, in, &x)) return -1;
    return out.constant(x, n.is_number);
  }
  Value t = make_tensor(n.shape);
  if (!eval_node(out, n, in, tensor_of(t)->data)) return -1;
  return out.constant_tensor(t);
}

// Two loops on the same operands whose bodies and leaves agree, the later one
// also saving its carries (autodiff's forward loop, loop.h): the earlier one's
// result is the later one's first entries, so the loop runs once.
bool same_loop_but_saving(const LoopBody &a, const LoopBody &b) {
  auto same = [](const std::vector<LeafSpec> &x, const std::vector<LeafSpec> &y) {
    if (x.size() != y.size()) return false;
    for (size_t k = 0; k < x.size(); k++)
      if (!(x[k].shape == y[k].shape) || x[k].is_number != y[k].is_number) return false;
    return true;
  };
  return a.kind == b.kind && a.trips == b.trips && a.reverse == b.reverse && a.body == b.body &&
         a.cond == b.cond && (!a.save_carries || b.save_carries) && same(a.carry, b.carry) &&
         same(a.xs, b.xs) && same(a.ys, b.ys) && same(a.captures, b.captures);
}

// twin[i]: the later Loop node whose result starts with node i's, or -1.
void find_loop_twins(const Graph &g, std::vector<int32_t> &twin) {
  twin.assign(size_t(g.size()), -1);
  std::vector<int32_t> loops;
  for (int32_t i = 0; i < g.size(); i++)
    if (g[i].op == Op::Loop) loops.push_back(i);
  for (size_t a = 0; a < loops.size(); a++)
    for (size_t b = a + 1; b < loops.size(); b++) {
      const GraphNode &x = g[loops[a]], &y = g[loops[b]];
      if (x.in[0] != y.in[0] || x.in[1] != y.in[1] || !same_loop_but_saving(*x.loop, *y.loop)) continue;
      twin[size_t(loops[a])] = loops[b];
      break;
    }
}

}  // namespace

std::unique_ptr<Graph> optimise(const Graph &g) {
  auto result = std::make_unique<Graph>();
  optimise_into(g, *result);
  return result;
}

void optimise_into(const Graph &g, Graph &out) {
  // Pass 1: rebuild with folding and simplification (hash-consed again, so
  // nodes that became identical after a rewrite merge).
  // Scratch state reused across calls (the optimiser does not re-enter itself).
  static thread_local Graph folded;
  static thread_local std::vector<int32_t> map, renum, params, twin;
  static thread_local std::vector<char> live;
  folded.clear();
  folded.adopt_constants(g);
  map.assign(size_t(g.size()), -1);
  find_loop_twins(g, twin);
  for (int32_t i = 0; i < g.size(); i++) {
    if (map[size_t(i)] >= 0) continue;  // a loop's twin, recorded in its place
    int32_t t = twin[size_t(i)];
    if (t >= 0) {
      // Node i's twin (same operands, so already mapped) in i's place, and i its prefix.
      while (twin[size_t(t)] >= 0) t = twin[size_t(t)];
      GraphNode n = g[t];
      for (int k = 0; k < 2; k++) n.in[k] = map[size_t(n.in[k])];
      int32_t r = folded.record(n);
      for (int32_t j = i; j >= 0; j = twin[size_t(j)])
        map[size_t(j)] = g[j].size() == g[t].size() ? r : folded.slice(r, 0, 0, g[j].size());
      continue;
    }
    GraphNode n = g[i];
    int arity = op_arity(n.op);
    // An exchange is never folded: every process must run it when the graph runs;
    // nor is a loop (its result may be much larger than its operands).
    bool all_const = arity > 0 && n.op != Op::Allreduce && n.op != Op::Loop;
    for (int k = 0; k < arity; k++) {
      n.in[k] = map[size_t(n.in[k])];
      if (!is_const(folded, n.in[k])) all_const = false;
    }
    int32_t r = -1;
    if (n.op == Op::Param) {
      r = folded.param(n.param_index, ArgSpec{n.shape, n.is_number});
    } else {
      if (all_const) r = fold(folded, n);
      if (r < 0) r = simplify(folded, n);
      if (r < 0) r = folded.record(n);
    }
    map[size_t(i)] = r;
  }
  folded.num_params = g.num_params;

  // Pass 2: keep what the outputs need; params first, then recording order.
  live.assign(size_t(folded.size()), 0);
  for (const GraphOutput &o : g.outputs) live[size_t(map[size_t(o.node)])] = 1;
  for (int32_t i = folded.size() - 1; i >= 0; i--)
    if (live[size_t(i)])
      for (int k = 0; k < op_arity(folded[i].op); k++) live[size_t(folded[i].in[k])] = 1;

  out.clear();
  Graph *result = &out;
  result->adopt_constants(folded);
  int32_t live_count = 0;
  for (char l : live) live_count += l;
  result->nodes.reserve(size_t(live_count + g.num_params));
  result->outputs.reserve(g.outputs.size());
  renum.assign(size_t(folded.size()), -1);
  params.assign(size_t(g.num_params), -1);
  for (int32_t i = 0; i < folded.size(); i++) {
    if (folded[i].op != Op::Param) continue;
    if (folded[i].param_index < g.num_params) params[size_t(folded[i].param_index)] = i;
    // A nested gradient's stand-in (trace.h) survives only when its symbolic value
    // left that gradient's function (set!, or an error caught inside the trace).
    else if (live[size_t(i)])
      throw_errorf("graph: a symbolic value escaped the function of a nested graph-grad or grad");
  }
  for (int p = 0; p < g.num_params; p++) {
    GraphNode n;
    if (params[size_t(p)] >= 0) {
      n = folded[params[size_t(p)]];
    } else {
      n.op = Op::Param;
      n.param_index = p;
    }
    int32_t id = result->add_node_raw(n);
    if (params[size_t(p)] >= 0) renum[size_t(params[size_t(p)])] = id;
  }
  result->num_params = g.num_params;
  for (int32_t i = 0; i < folded.size(); i++) {
    if (!live[size_t(i)] || folded[i].op == Op::Param) continue;
    GraphNode n = folded[i];
    for (int k = 0; k < op_arity(n.op); k++) n.in[k] = renum[size_t(n.in[k])];
    renum[size_t(i)] = result->add_node_raw(n);
  }
  for (const GraphOutput &o : g.outputs)
    result->outputs.push_back({renum[size_t(map[size_t(o.node)])], o.as_number});
  // The result's hash-cons table is built if and when something records into it.
}

}  // namespace kiln

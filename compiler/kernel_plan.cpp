// kernel_plan.cpp — where a kernel's values live and the order it computes
// them in (see kernel_plan.h).
#include "compiler/kernel_plan.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>

#include "compiler/jit_context.h"
#include "compiler/kernel_units.h"
#include "compiler/loop.h"
#include "runtime/eval.h"

namespace kiln {

// Gives every Scratch node that a unit stores an offset, reusing the buffers of
// nodes no later unit reads: walking the units in emission order, a unit's
// outputs get buffers before the buffers of its inputs it reads last are freed,
// so a unit never writes a buffer it reads. A freed buffer goes to the next
// node of the same rounded size (the most recently freed first: it is the one
// still in cache). Run values the unit does not store get no buffer.
static void assign_scratch(const Graph &g, KernelLayout &L) {
  const std::vector<bool> &in_place = L.read_in_place;
  const std::vector<KernelUnit> &units = L.units;
  auto owner = [&](int32_t a) { return in_place[size_t(a)] ? g[a].in[0] : a; };
  auto is_scratch = [&](int32_t a) { return L.slots[size_t(a)].place == KernelLayout::Place::Scratch; };
  auto rounded = [&](int32_t a) { return (g[a].size() + 7) / 8 * 8; };  // keeps buffers 64-byte aligned
  constexpr size_t kUnread = SIZE_MAX;
  std::vector<size_t> last_read(size_t(g.size()), kUnread);
  for (size_t u = 0; u < units.size(); u++)
    for (int32_t a : units[u].slots) last_read[size_t(owner(a))] = u;
  // Outputs not written straight into their result are copied after the units.
  for (const GraphOutput &o : g.outputs) last_read[size_t(owner(o.node))] = units.size();

  std::vector<bool> placed(size_t(g.size()), false), freed(size_t(g.size()), false);
  std::map<int64_t, std::vector<int64_t>> free_buffers;  // rounded size -> offsets
  for (size_t u = 0; u < units.size(); u++) {
    // A node's first unit is the one computing it: operands precede readers.
    for (int32_t a : units[u].slots) {
      if (!is_scratch(a) || in_place[size_t(a)] || placed[size_t(a)]) continue;
      placed[size_t(a)] = true;
      std::vector<int64_t> &same = free_buffers[rounded(a)];
      if (!same.empty()) {
        L.slots[size_t(a)].offset = same.back();
        same.pop_back();
      } else {
        L.slots[size_t(a)].offset = L.scratch_doubles;
        L.scratch_doubles += rounded(a);
      }
      if (last_read[size_t(a)] == kUnread) last_read[size_t(a)] = u;
    }
    for (int32_t a : units[u].slots) {
      int32_t o = owner(a);
      if (!is_scratch(o) || last_read[size_t(o)] != u || freed[size_t(o)]) continue;
      freed[size_t(o)] = true;
      free_buffers[rounded(o)].push_back(L.slots[size_t(o)].offset);
    }
  }
}

static int64_t round8(int64_t n) { return (n + 7) / 8 * 8; }

// Takes `sub`'s constants (its own, then its loops') into L.loop_consts and its
// index checks into L.index_checks, their statuses in fresh scratch.
static int32_t lift_sub_layout(const Graph &sub_graph, const KernelLayout &sub, KernelLayout &L) {
  auto at = int32_t(L.num_params + int32_t(L.const_nodes.size() + L.loop_consts.size()));
  for (int32_t c : sub.const_nodes) L.loop_consts.push_back(sub_graph[c].const_data);
  L.loop_consts.insert(L.loop_consts.end(), sub.loop_consts.begin(), sub.loop_consts.end());
  for (const KernelLayout::IndexCheck &c : sub.index_checks) {
    L.index_checks.push_back({c.node, L.scratch_doubles, c.graph ? c.graph : &sub_graph});
    L.scratch_doubles += 8;
  }
  return at;
}

// Plans Loop node i: its body's (and cond's) own plans and its private scratch.
static void plan_loop(const Graph &g, int32_t i, KernelLayout &L) {
  const LoopBody &body = *g[i].loop;
  KernelLayout::LoopPlan p;
  p.node = i;
  p.body = std::make_shared<KernelLayout>(plan_kernel(*body.body));
  if (body.cond) p.cond = std::make_shared<KernelLayout>(plan_kernel(*body.cond));
  p.check_first = L.index_checks.size();
  p.body_consts = lift_sub_layout(*body.body, *p.body, L);
  if (p.cond) p.cond_consts = lift_sub_layout(*body.cond, *p.cond, L);
  p.carries = L.scratch_doubles;
  L.scratch_doubles += 2 * round8(body.carry_size());
  const GraphNode &consts = g[g[i].in[1]];
  if (consts.op == Op::Const && !consts.const_data) {  // a literal has no buffer to point into
    p.consts_copy = L.scratch_doubles;
    L.scratch_doubles += round8(std::max<int64_t>(1, consts.size()));
  }
  p.body_scratch = L.scratch_doubles;
  L.scratch_doubles += round8(p.body->scratch_doubles);
  if (p.cond) {
    p.cond_scratch = L.scratch_doubles;
    L.scratch_doubles += round8(p.cond->scratch_doubles);
  }
  L.loops.push_back(std::move(p));
}

KernelLayout plan_kernel(const Graph &g) {
  KernelLayout L;
  L.num_params = g.num_params;
  L.slots.resize(size_t(g.size()));
  std::vector<bool> is_result(size_t(g.size()), false);
  for (size_t o = 0; o < g.outputs.size(); o++) {
    int32_t nd = g.outputs[o].node;
    Op op = g[nd].op;
    // A node computed by the kernel writes straight into its first result; any
    // other output of it (or an output that is a parameter/constant) is copied.
    if (op != Op::Param && op != Op::Const && !is_result[size_t(nd)]) {
      is_result[size_t(nd)] = true;
      L.slots[size_t(nd)] = {KernelLayout::Place::Result, int32_t(o), 0};
    }
  }
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    KernelLayout::Slot &s = L.slots[size_t(i)];
    if (n.op == Op::Param) {
      s = {KernelLayout::Place::Arg, n.param_index, 0};
    } else if (n.op == Op::Const) {
      if (n.const_data) {
        s = {KernelLayout::Place::ConstTensor, int32_t(g.num_params + int32_t(L.const_nodes.size())), 0};
        L.const_nodes.push_back(i);
      } else {
        s = {KernelLayout::Place::ConstScalar, 0, 0};
      }
    } else if (!is_result[size_t(i)]) {
      s = {KernelLayout::Place::Scratch, 0, 0};
    }
  }
  L.read_in_place = operand_transposes(g);
  L.units = kernel_units(g, kernel_emission_order(g), L.read_in_place);
  assign_scratch(g, L);
  for (int32_t i = 0; i < g.size(); i++)
    if (op_info(g[i].op).checks) {
      L.index_checks.push_back({i, L.scratch_doubles});
      L.scratch_doubles += 8;
    }
  for (int32_t i = 0; i < g.size(); i++)
    if (g[i].op == Op::Loop) plan_loop(g, i, L);
  return L;
}

// A serial sum's result finishing a chain of its input's whole length: Sum,
// Mean, and SumTo onto a single element (k_sum_to then adds every element in
// row-major order from 0.0, as k_sum does).
static bool is_serial_sum(const Graph &g, int32_t i) {
  const GraphNode &n = g[i];
  return n.op == Op::Sum || n.op == Op::Mean || (n.op == Op::SumTo && n.size() == 1);
}

std::vector<bool> operand_transposes(const Graph &g) {
  std::vector<int> uses(size_t(g.size()), 0), left_uses(size_t(g.size()), 0), right_uses(size_t(g.size()), 0);
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    for (int q = 0; q < op_arity(n.op); q++) uses[size_t(n.in[q])]++;
    if (n.op == Op::Matmul && n.shape.rank == 2 && n.in[0] != n.in[1]) {
      left_uses[size_t(n.in[0])]++;
      right_uses[size_t(n.in[1])]++;
    }
  }
  for (const GraphOutput &o : g.outputs) uses[size_t(o.node)]++;
  std::vector<bool> in_place(size_t(g.size()), false);
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    if (n.op != Op::Transpose || n.shape.rank != 2 || uses[size_t(i)] == 0) continue;
    const GraphNode &x = g[n.in[0]];
    if (x.op == Op::Const && !x.const_data) continue;  // no buffer to read in place
    // Right: its matmuls gather stripes of k rows into a stack pack
    // (Emitter::pack_transposed), so k is bounded.
    in_place[size_t(i)] = uses[size_t(i)] == left_uses[size_t(i)] ||
                          (uses[size_t(i)] == right_uses[size_t(i)] && n.shape.dim[0] <= kMaxPackedInner);
  }
  return in_place;
}

int64_t transpose_band_iterations(const GraphNode &t) {
  return t.shape.dim[0] / kTransposeBand * t.shape.dim[1];
}
static bool can_host_sums(const Graph &g, int32_t t, const std::vector<bool> &in_place, int64_t sum_len) {
  const GraphNode &n = g[t];
  if (n.op != Op::Transpose || n.shape.rank != 2 || n.perm[0] != 1 || in_place[size_t(t)]) return false;
  int64_t iters = transpose_band_iterations(n);
  return iters > 0 && sum_len / iters >= 1;
}

// An element-wise node over n >= 2 elements whose operands have n elements in
// the same layout, or one: a candidate for a fused loop.
static bool is_flat_elementwise(const Graph &g, int32_t i) {
  const GraphNode &n = g[i];
  if (!op_is_binary(n.op) && !op_is_unary(n.op) && n.op != Op::Select && n.op != Op::BroadcastTo)
    return false;
  int64_t size = n.size();
  if (size < 2) return false;
  for (int q = 0; q < op_arity(n.op); q++) {
    int64_t s = g[n.in[q]].size();
    if (s != size && s != 1) return false;
  }
  return true;
}

// Records, for every node of steps[from..], the position of its step.
static void index_steps(const std::vector<EmitStep> &steps, size_t from, std::vector<size_t> &pos) {
  for (size_t q = from; q < steps.size(); q++)
    for (int32_t nd : {steps[q].node, steps[q].paired, steps[q].host})
      if (nd >= 0) pos[size_t(nd)] = q;
}

std::vector<EmitStep> kernel_emission_order(const Graph &g) {
  std::vector<int32_t> order;  // -(first + 1) then the second marks a pair
  for (int32_t i = 0; i < g.size(); i++) order.push_back(i);
  std::vector<bool> paired(size_t(g.size()), false);
  for (size_t pr = 0; pr < order.size(); pr++) {
    int32_t r = order[pr];
    if (r < 0 || paired[size_t(r)] || !is_serial_sum(g, r)) continue;
    // Each pairing attempt is linear in the graph, so a graph of many sums takes
    // quadratic time here: let Ctrl-C stop it.
    check_interrupt_unless_background();
    std::vector<bool> dep(size_t(g.size()), false);
    dep[size_t(r)] = true;
    for (int32_t j = r + 1; j < g.size(); j++)
      for (int q = 0; q < op_arity(g[j].op); q++)
        if (dep[size_t(g[j].in[q])]) dep[size_t(j)] = true;
    size_t pr2 = pr + 1;
    for (; pr2 < order.size(); pr2++) {
      int32_t c = order[pr2];
      if (c < 0) {  // an earlier pair: do not reorder across it
        pr2 = order.size();
        break;
      }
      if (!dep[size_t(c)] && !paired[size_t(c)] && is_serial_sum(g, c) &&
          g[g[c].in[0]].size() == g[g[r].in[0]].size())
        break;
    }
    if (pr2 >= order.size()) continue;
    int32_t r2 = order[pr2];
    std::vector<int32_t> next(order.begin(), order.begin() + std::ptrdiff_t(pr));
    for (size_t q = pr + 1; q < pr2; q++)
      if (!dep[size_t(order[q])]) next.push_back(order[q]);
    size_t pair_at = next.size();
    next.push_back(-r - 1);
    next.push_back(r2);
    for (size_t q = pr + 1; q < pr2; q++)
      if (dep[size_t(order[q])]) next.push_back(order[q]);
    next.insert(next.end(), order.begin() + std::ptrdiff_t(pr2) + 1, order.end());
    order = std::move(next);
    paired[size_t(r)] = paired[size_t(r2)] = true;
    pr = pair_at + 1;
  }

  std::vector<EmitStep> steps;
  for (size_t p = 0; p < order.size(); p++) {
    if (order[p] < 0) {
      steps.push_back(EmitStep{-order[p] - 1, order[p + 1]});
      p++;
    } else {
      steps.push_back(EmitStep{order[p]});
    }
  }
  // Hosts: the first later transpose that can carry the sum and whose input is
  // computed before it (so moving it up breaks no dependency).
  std::vector<bool> in_place = operand_transposes(g);
  std::vector<size_t> step_of(size_t(g.size()), 0);
  index_steps(steps, 0, step_of);
  for (size_t p = 0; p < steps.size(); p++) {
    int32_t sum = steps[p].node;
    if (!is_serial_sum(g, sum)) continue;
    check_interrupt_unless_background();  // each search is linear in the graph
    int64_t len = g[g[sum].in[0]].size();
    for (size_t q = p + 1; q < steps.size(); q++) {
      int32_t t = steps[q].node;
      if (steps[q].paired >= 0 || !can_host_sums(g, t, in_place, len)) continue;
      int32_t input = g[t].in[0];
      if (g[input].op != Op::Param && g[input].op != Op::Const && step_of[size_t(input)] >= p) continue;
      steps[p].host = t;
      steps.erase(steps.begin() + std::ptrdiff_t(q));
      index_steps(steps, p, step_of);
      break;
    }
  }
  // Steps with no loop (parameters, constants, and element-wise ops on one
  // element) move up to just after their operands, so they do not split runs.
  {
    std::vector<EmitStep> moved;
    std::vector<size_t> at(size_t(g.size()), 0);  // each placed node's position in `moved`
    for (const EmitStep &st : steps) {
      // Quadratic for a graph of very many params (each goes to the front): let
      // Ctrl-C stop it.
      if ((moved.size() & 1023) == 0) check_interrupt_unless_background();
      const GraphNode &n = g[st.node];
      bool no_loop = st.paired < 0 && st.host < 0 &&
                     (n.op == Op::Param || n.op == Op::Const ||
                      (n.size() == 1 && (op_is_binary(n.op) || op_is_unary(n.op))));
      size_t pos = moved.size();
      if (no_loop) {
        pos = 0;
        for (int q = 0; q < op_arity(n.op); q++) pos = std::max(pos, at[size_t(n.in[q])] + 1);
      }
      moved.insert(moved.begin() + std::ptrdiff_t(pos), st);
      index_steps(moved, pos, at);
    }
    steps = std::move(moved);
  }
  // Runs of element-wise steps over the same elements.
  auto plain_flat = [&](size_t q) {
    return steps[q].paired < 0 && steps[q].host < 0 && is_flat_elementwise(g, steps[q].node);
  };
  for (size_t p = 0; p + 1 < steps.size(); p++)
    steps[p].fuse_next =
        plain_flat(p) && plain_flat(p + 1) && g[steps[p].node].size() == g[steps[p + 1].node].size();
  return steps;
}
}  // namespace kiln

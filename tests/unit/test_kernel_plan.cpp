// test_kernel_plan.cpp — the kernel plan (compiler/kernel_plan.h) on small
// graphs: where every node's value lives (arguments, literals, results, aligned
// scratch buffers that overlap only when one value is dead before the other is
// computed) and the order and grouping of the
// emission steps (every node once, operands first, fused runs, paired sums,
// transposes hosting sums, left operands read in place). No code is compiled:
// the plan is plain data (test_jit.cpp runs the kernels).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "compiler/graph.h"
#include "compiler/kernel_plan.h"
#include "compiler/kernel_units.h"
#include "runtime/tensor.h"

// The plan must stay free of libgccjit (its header's include guard).
#ifdef LIBGCCJIT_H
#error "compiler/kernel_plan.h pulls in libgccjit.h"
#endif

using namespace kiln;

namespace {

using Place = KernelLayout::Place;

ArgSpec tensor_spec(std::initializer_list<int64_t> dims) { return ArgSpec{Shape::of(dims), false}; }

// The step holding `node` (as its node, paired sum or host), or steps.size().
size_t step_of(const std::vector<EmitStep> &steps, int32_t node) {
  for (size_t p = 0; p < steps.size(); p++)
    if (steps[p].node == node || steps[p].paired == node || steps[p].host == node) return p;
  return steps.size();
}

// Every node in exactly one step, and every operand in an earlier step than
// its reader (nodes sharing a step never read one another).
void check_schedule(const Graph &g, const std::vector<EmitStep> &steps) {
  std::vector<int> seen(size_t(g.size()), 0);
  for (const EmitStep &s : steps)
    for (int32_t nd : {s.node, s.paired, s.host})
      if (nd >= 0) seen[size_t(nd)]++;
  for (int32_t i = 0; i < g.size(); i++) {
    INFO("node " << i << " " << op_name(g[i].op));
    CHECK(seen[size_t(i)] == 1);
    for (int q = 0; q < op_arity(g[i].op); q++) CHECK(step_of(steps, g[i].in[q]) < step_of(steps, i));
  }
  if (!steps.empty()) CHECK_FALSE(steps.back().fuse_next);  // a run ends inside the kernel
}

// Every stored scratch buffer is 64-byte aligned and inside scratch_doubles,
// and two nodes share memory only when one is computed after the other's last
// reader: live ranges are taken over the units in emission order (outputs are
// read after the last unit, by the copies into results).
void check_buffers(const Graph &g, const KernelLayout &L) {
  std::vector<bool> in_place = operand_transposes(g);
  std::vector<KernelUnit> units = kernel_units(g, kernel_emission_order(g), in_place);
  auto owner = [&](int32_t a) { return in_place[size_t(a)] ? g[a].in[0] : a; };
  std::vector<int64_t> first(size_t(g.size()), -1), last(size_t(g.size()), -1);
  for (size_t u = 0; u < units.size(); u++)
    for (int32_t a : units[u].slots) {
      int32_t o = owner(a);
      if (first[size_t(o)] < 0) first[size_t(o)] = int64_t(u);
      last[size_t(o)] = int64_t(u);
    }
  for (const GraphOutput &o : g.outputs) last[size_t(owner(o.node))] = int64_t(units.size());
  std::vector<int32_t> stored;
  for (int32_t i = 0; i < g.size(); i++)
    if (L.slots[size_t(i)].place == Place::Scratch && first[size_t(i)] >= 0) stored.push_back(i);
  for (int32_t a : stored) {
    INFO("node " << a << " " << op_name(g[a].op));
    CHECK(L.slots[size_t(a)].offset % 8 == 0);
    CHECK(L.slots[size_t(a)].offset + g[a].size() <= L.scratch_doubles);
    for (int32_t b : stored) {
      if (b <= a) continue;
      bool overlap_in_time = first[size_t(a)] <= last[size_t(b)] && first[size_t(b)] <= last[size_t(a)];
      int64_t a0 = L.slots[size_t(a)].offset, b0 = L.slots[size_t(b)].offset;
      bool overlap_in_memory = a0 < b0 + g[b].size() && b0 < a0 + g[a].size();
      INFO("and node " << b << " " << op_name(g[b].op));
      CHECK_FALSE((overlap_in_time && overlap_in_memory));
    }
  }
}

}  // namespace

TEST_CASE("kernel plan: parameters, constants, results and scratch", "[kernel_plan]") {
  Graph g;
  int32_t x = g.param(0, tensor_spec({3, 5}));
  int32_t n = g.param(1, ArgSpec{Shape{}, true});
  Tensor *t = alloc_tensor(Shape::of({3, 5}));
  for (int64_t i = 0; i < t->size; i++) t->data[i] = double(i);
  int32_t w = g.constant_tensor(from_ptr(t));
  int32_t half = g.constant(0.5);
  int32_t a = g.binary("test", Op::Add, x, w);     // 15 elements: scratch
  int32_t b = g.binary("test", Op::Mul, a, half);  // an output, twice
  int32_t c = g.unary(Op::Exp, g.binary("test", Op::Mul, b, n));
  int32_t s = g.reduce_all(Op::Sum, c);  // an output returned as a number
  int32_t y = g.unary(Op::Tanh, g.binary("test", Op::Sub, c, s));
  g.outputs = {GraphOutput{b, false}, GraphOutput{y, false}, GraphOutput{b, false}, GraphOutput{x, false},
               GraphOutput{s, true}};

  KernelLayout L = plan_kernel(g);
  REQUIRE(L.slots.size() == size_t(g.size()));
  CHECK(L.num_params == 2);
  auto slot = [&](int32_t i) { return L.slots[size_t(i)]; };

  CHECK(slot(x).place == Place::Arg);
  CHECK(slot(x).index == 0);
  CHECK(slot(n).place == Place::Arg);
  CHECK(slot(n).index == 1);
  // A tensor constant is passed after the parameters, in const_nodes order.
  CHECK(slot(w).place == Place::ConstTensor);
  CHECK(slot(w).index == 2);
  CHECK(L.const_nodes == std::vector<int32_t>{w});
  CHECK(slot(half).place == Place::ConstScalar);

  // A computed output writes straight into its FIRST result; its second use
  // (result 2) and an output that is a parameter (result 3) are copies.
  CHECK(slot(b).place == Place::Result);
  CHECK(slot(b).index == 0);
  CHECK(slot(y).place == Place::Result);
  CHECK(slot(y).index == 1);
  CHECK(slot(s).place == Place::Result);
  CHECK(slot(s).index == 4);

  // Every other computed node is in scratch (a, b*n, c, c-s); those stored
  // have 64-byte aligned buffers, disjoint while both values are live.
  int scratch_nodes = 0;
  for (int32_t i = 0; i < g.size(); i++) {
    if (slot(i).place != Place::Scratch) continue;
    scratch_nodes++;
    CHECK(g[i].op != Op::Param);
    CHECK(g[i].op != Op::Const);
  }
  CHECK(scratch_nodes == 4);
  check_buffers(g, L);
  CHECK(L.scratch_doubles > 0);
  CHECK(L.scratch_doubles <= 4 * 16);  // at most four 15-element buffers, each rounded up to 16
}

TEST_CASE("kernel plan: a buffer is reused once its value is dead", "[kernel_plan]") {
  // m1 = x W, m2 = m1 W, m3 = m2 W, m4 = m3 W, output sum(m4): two buffers
  // take turns; m4 is read by the sum only, then m1's and m3's buffer is free.
  Graph g;
  int32_t x = g.param(0, tensor_spec({4, 8}));
  int32_t w = g.param(1, tensor_spec({8, 8}));
  int32_t m1 = g.matmul("test", x, w);
  int32_t m2 = g.matmul("test", m1, w);
  int32_t m3 = g.matmul("test", m2, w);
  int32_t m4 = g.matmul("test", m3, w);
  int32_t s = g.reduce_all(Op::Sum, m4);
  g.outputs = {GraphOutput{s, true}};
  KernelLayout L = plan_kernel(g);
  check_buffers(g, L);
  CHECK(L.scratch_doubles == 2 * 32);
  CHECK(L.slots[size_t(m1)].offset == L.slots[size_t(m3)].offset);
  CHECK(L.slots[size_t(m2)].offset == L.slots[size_t(m4)].offset);
  CHECK(L.slots[size_t(m1)].offset != L.slots[size_t(m2)].offset);

  // An output read again later keeps its value: its result buffer is not
  // scratch, and what it reads stays live until then.
  g.outputs = {GraphOutput{s, true}, GraphOutput{m2, false}, GraphOutput{m1, false}};
  KernelLayout L2 = plan_kernel(g);
  check_buffers(g, L2);
  CHECK(L2.slots[size_t(m1)].place == Place::Result);
  CHECK(L2.slots[size_t(m2)].place == Place::Result);
}

TEST_CASE("kernel plan: a graph with nothing computed needs no scratch", "[kernel_plan]") {
  Graph g;
  int32_t x = g.param(0, tensor_spec({4}));
  int32_t k = g.constant(2.0);
  g.outputs = {GraphOutput{x, false}, GraphOutput{k, true}};
  KernelLayout L = plan_kernel(g);
  CHECK(L.slots[size_t(x)].place == Place::Arg);
  CHECK(L.slots[size_t(k)].place == Place::ConstScalar);
  CHECK(L.scratch_doubles == 0);
  CHECK(L.const_nodes.empty());
  std::vector<EmitStep> steps = kernel_emission_order(g);
  check_schedule(g, steps);
  CHECK(steps.size() == 2);
}

TEST_CASE("kernel plan: element-wise nodes of one size fuse, other sizes and reductions split",
          "[kernel_plan]") {
  Graph g;
  int32_t x = g.param(0, tensor_spec({4, 6}));
  int32_t row = g.param(1, tensor_spec({6}));
  int32_t k = g.param(2, ArgSpec{Shape{}, true});
  int32_t a = g.binary("test", Op::Mul, x, k);  // run 1: x*k, exp, +1
  int32_t e = g.unary(Op::Exp, a);
  int32_t p = g.binary("test", Op::Add, e, g.constant(1.0));
  int32_t kk = g.binary("test", Op::Mul, k, k);    // one element: no loop, moves up
  int32_t bc = g.binary("test", Op::Add, p, row);  // broadcasts a row: not flat, runs alone
  int32_t r = g.unary(Op::Relu, bc);               // run 2: relu, *kk
  int32_t m = g.binary("test", Op::Mul, r, kk);
  int32_t sa = g.reduce_axis(Op::SumAxis, m, 0, false);  // a reduction: never fused
  int32_t q = g.unary(Op::Square, sa);                   // 6 elements
  int32_t q2 = g.unary(Op::Neg, q);                      // run 3 (6 elements)
  int32_t big = g.unary(Op::Abs, x);                     // 24 elements right after a 6-element step
  int32_t big2 = g.unary(Op::Sin, big);
  g.outputs = {GraphOutput{q2, false}, GraphOutput{e, false}, GraphOutput{big2, false}};

  std::vector<EmitStep> steps = kernel_emission_order(g);
  check_schedule(g, steps);
  auto at = [&](int32_t node) -> const EmitStep & { return steps[step_of(steps, node)]; };
  CHECK(at(a).fuse_next);
  CHECK(at(e).fuse_next);
  CHECK(step_of(steps, e) == step_of(steps, a) + 1);
  CHECK(step_of(steps, p) == step_of(steps, e) + 1);
  // The one-element product sits right after its operand, before the run.
  CHECK(step_of(steps, kk) == step_of(steps, k) + 1);
  CHECK_FALSE(at(p).fuse_next);  // bc reads a broadcast row
  CHECK_FALSE(at(bc).fuse_next);
  CHECK(at(r).fuse_next);
  CHECK_FALSE(at(m).fuse_next);  // the axis sum follows
  CHECK_FALSE(at(sa).fuse_next);
  CHECK(at(q).fuse_next);
  REQUIRE(step_of(steps, big) == step_of(steps, q2) + 1);
  CHECK_FALSE(at(q2).fuse_next);  // 6 elements, then 24: two loops
  CHECK(at(big).fuse_next);
  CHECK_FALSE(at(big2).fuse_next);  // the last step
  for (const EmitStep &s : steps) {
    CHECK(s.paired == -1);
    CHECK(s.host == -1);
  }
}

TEST_CASE("kernel plan: an independent serial sum of the same length pairs, a dependent one does not",
          "[kernel_plan]") {
  Graph g;
  int32_t x = g.param(0, tensor_spec({10}));
  int32_t y = g.param(1, tensor_spec({10}));
  int32_t z = g.param(2, tensor_spec({7}));
  int32_t s1 = g.reduce_all(Op::Sum, x);
  int32_t d = g.binary("test", Op::Mul, y, s1);  // depends on s1: follows the pair
  int32_t s_short = g.reduce_all(Op::Sum, z);    // another length: not a partner
  int32_t s3 = g.reduce_all(Op::Sum, d);         // same length, but depends on s1
  int32_t s2 = g.reduce_all(Op::Mean, y);        // the partner
  g.outputs = {GraphOutput{s3, true}, GraphOutput{s2, true}, GraphOutput{s_short, true}};

  std::vector<EmitStep> steps = kernel_emission_order(g);
  check_schedule(g, steps);
  const EmitStep &pair = steps[step_of(steps, s1)];
  CHECK(pair.node == s1);
  CHECK(pair.paired == s2);
  CHECK(pair.host == -1);
  CHECK(step_of(steps, s_short) < step_of(steps, s1));  // independent: stays before
  CHECK(step_of(steps, d) > step_of(steps, s1));
  CHECK(step_of(steps, s3) > step_of(steps, s1));
  CHECK(steps[step_of(steps, s3)].node == s3);
  CHECK(steps[step_of(steps, s3)].paired == -1);
  CHECK(steps.size() == size_t(g.size()) - 1);
}

TEST_CASE("kernel plan: a rank-2 transpose hosts a sum, a matmul's left operand is read in place",
          "[kernel_plan]") {
  static const int swap[2] = {1, 0};
  SECTION("a materialised transpose with enough full bands carries the sum") {
    Graph g;
    int32_t w = g.param(0, tensor_spec({5, 17}));  // transposed to 17x5: two full bands of 8 rows
    int32_t v = g.param(1, tensor_spec({40}));
    int32_t total = g.reduce_all(Op::Sum, v);
    int32_t wt = g.transpose(w, swap);
    g.outputs = {GraphOutput{total, true}, GraphOutput{wt, false}};
    CHECK(transpose_band_iterations(g[wt]) == 2 * 5);
    std::vector<EmitStep> steps = kernel_emission_order(g);
    check_schedule(g, steps);
    const EmitStep &s = steps[step_of(steps, total)];
    CHECK(s.node == total);
    CHECK(s.host == wt);
    CHECK(operand_transposes(g) == std::vector<bool>(size_t(g.size()), false));
  }
  SECTION("a transpose with no full band hosts nothing") {
    Graph g;
    int32_t w = g.param(0, tensor_spec({5, 7}));  // 7x5: rows < kTransposeBand
    int32_t v = g.param(1, tensor_spec({40}));
    int32_t total = g.reduce_all(Op::Sum, v);
    int32_t wt = g.transpose(w, swap);
    g.outputs = {GraphOutput{total, true}, GraphOutput{wt, false}};
    CHECK(transpose_band_iterations(g[wt]) == 0);
    std::vector<EmitStep> steps = kernel_emission_order(g);
    check_schedule(g, steps);
    CHECK(steps[step_of(steps, total)].host == -1);
  }
  SECTION("left operands of matmuls only, or right operands only") {
    Graph g;
    int32_t a = g.param(0, tensor_spec({6, 4}));
    int32_t b = g.param(1, tensor_spec({6, 3}));
    int32_t c = g.param(2, tensor_spec({4, 4}));
    int32_t d = g.param(3, tensor_spec({3, 4}));
    int32_t at = g.transpose(a, swap);     // 4x6: the left operand of two matmuls
    int32_t m1 = g.matmul("test", at, b);  // 4x3
    int32_t m2 = g.matmul("test", at, a);  // 4x4
    int32_t ct = g.transpose(c, swap);     // a left operand AND an output
    int32_t m3 = g.matmul("test", ct, c);
    int32_t ct2 = g.transpose(g.binary("test", Op::Add, c, c), swap);
    int32_t m4 = g.matmul("test", ct2, ct2);  // both operands of one matmul
    int32_t dt = g.transpose(d, swap);        // 4x3: a right operand, and transposed again
    int32_t dtt = g.transpose(dt, swap);      // 3x4: only a right operand
    int32_t m5 = g.matmul("test", m1, dtt);
    int32_t m6 = g.matmul("test", m2, dt);
    g.outputs = {GraphOutput{m1, false}, GraphOutput{m2, false}, GraphOutput{m3, false},
                 GraphOutput{ct, false}, GraphOutput{m4, false}, GraphOutput{m5, false},
                 GraphOutput{m6, false}};
    std::vector<bool> left = operand_transposes(g);
    CHECK(left[size_t(at)]);
    CHECK_FALSE(left[size_t(ct)]);
    CHECK_FALSE(left[size_t(ct2)]);
    CHECK_FALSE(left[size_t(dt)]);
    CHECK(left[size_t(dtt)]);
    for (int32_t i = 0; i < g.size(); i++)
      if (g[i].op != Op::Transpose) CHECK_FALSE(left[size_t(i)]);
    check_schedule(g, kernel_emission_order(g));
  }
}

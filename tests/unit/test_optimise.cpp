// test_optimise.cpp — the graph optimiser (compiler/optimise.cpp): constant
// folding, the exact simplifications (x*1, 1*x, x/1, -(-x), select on a
// constant mask) and the checks that keep them exact, dead-node removal and
// the numbering of the result. Recording and the interpreter are test_graph.cpp's.
#include <catch2/catch.hpp>

#include "compiler/graph.h"
#include "compiler/optimise.h"
#include "runtime/tensor.h"

using namespace kiln;

namespace {

// A constant tensor of shape s holding `values` in row-major order.
int32_t const_tensor(Graph &g, const Shape &s, std::initializer_list<double> values) {
  Value t = make_tensor(s);
  double *d = tensor_of(t)->data;
  for (double x : values) *d++ = x;
  return g.constant_tensor(t);
}

ArgSpec tensor_arg(std::initializer_list<int64_t> dims) { return ArgSpec{Shape::of(dims), false}; }

}  // namespace

TEST_CASE("optimise: folds constants, removes dead nodes and numbers params first", "[optimise]") {
  Graph g;
  int32_t two = g.constant(2.0), three = g.constant(3.0);
  int32_t six = g.binary("*", Op::Mul, two, three);
  int32_t x = g.param(0, ArgSpec{});
  g.param(1, ArgSpec{});           // unused: kept, as every param is
  g.binary("+", Op::Add, x, two);  // dead
  int32_t out = g.binary("*", Op::Mul, six, x);
  int32_t one = g.constant(1.0);
  out = g.binary("*", Op::Mul, out, one);  // x*1 -> x (exact)
  g.outputs.push_back({out, true});
  auto o = optimise(g);
  REQUIRE(o->size() == 4);
  CHECK((*o)[0].op == Op::Param);
  CHECK((*o)[1].op == Op::Param);
  CHECK((*o)[2].op == Op::Const);
  CHECK((*o)[2].scalar == 6.0);
  CHECK((*o)[3].op == Op::Mul);
  CHECK(o->outputs[0].node == 3);
  CHECK(o->outputs[0].as_number);
  CHECK(o->num_params == 2);
}

TEST_CASE("optimise: params come first in argument order, recorded or not", "[optimise]") {
  Graph g;
  int32_t b = g.param(1, tensor_arg({2}));
  int32_t a = g.param(0, tensor_arg({2}));
  g.num_params = 3;  // the third argument is never used, so never recorded
  g.outputs.push_back({g.binary("tensor-sub", Op::Sub, b, a), false});
  auto o = optimise(g);
  REQUIRE(o->size() == 4);
  for (int p = 0; p < 3; p++) {
    CHECK((*o)[p].op == Op::Param);
    CHECK((*o)[p].param_index == p);
  }
  CHECK((*o)[3].op == Op::Sub);
  CHECK((*o)[3].in[0] == 1);  // b, argument 1
  CHECK((*o)[3].in[1] == 0);
  CHECK(o->outputs[0].node == 3);
}

TEST_CASE("optimise: folds whole tensor expressions with the interpreter's arithmetic", "[optimise]") {
  Graph g;
  int32_t c = const_tensor(g, Shape::of({3}), {1.0, -2.0, 0.5});
  int32_t e = g.unary(Op::Neg, g.binary("*", Op::Mul, c, g.constant(4.0)));
  g.outputs.push_back({e, false});
  auto o = optimise(g);
  REQUIRE(o->size() == 1);
  const GraphNode &n = (*o)[0];
  REQUIRE(n.op == Op::Const);
  REQUIRE(n.shape == Shape::of({3}));
  CHECK(n.const_at(0) == -4.0);
  CHECK(n.const_at(1) == 8.0);
  CHECK(n.const_at(2) == -2.0);
}

TEST_CASE("optimise: a broadcast constant stays one cheap node", "[optimise]") {
  // Folding a result larger than every operand would make a large literal.
  Graph g;
  int32_t seed = g.broadcast_to(g.constant(1.0, false), Shape::of({64, 64}));
  int32_t x = g.param(0, tensor_arg({64, 64}));
  g.outputs.push_back({g.binary("tensor-add", Op::Add, x, seed), false});
  auto o = optimise(g);
  REQUIRE(o->size() == 4);
  CHECK((*o)[1].op == Op::Const);
  CHECK((*o)[1].const_data == nullptr);
  CHECK((*o)[2].op == Op::BroadcastTo);
  CHECK((*o)[3].op == Op::Add);
}

TEST_CASE("optimise: exact simplifications x*1, 1*x, x/1 and -(-x)", "[optimise]") {
  Graph g;
  int32_t x = g.param(0, tensor_arg({2, 3}));
  int32_t one = g.constant(1.0, false);
  int32_t ones = const_tensor(g, Shape::of({2, 3}), {1, 1, 1, 1, 1, 1});
  g.outputs.push_back({g.binary("*", Op::Mul, x, one), false});
  g.outputs.push_back({g.binary("*", Op::Mul, ones, x), false});
  g.outputs.push_back({g.binary("/", Op::Div, x, ones), false});
  g.outputs.push_back({g.unary(Op::Neg, g.unary(Op::Neg, x)), false});
  auto o = optimise(g);
  REQUIRE(o->size() == 1);
  for (const GraphOutput &out : o->outputs) CHECK(out.node == 0);
}

TEST_CASE("optimise: simplifications that would change the result's shape or kind are not made",
          "[optimise]") {
  Graph g;
  // x*1 where the 1 broadcasts x to a larger shape: the product is kept.
  int32_t x = g.param(0, tensor_arg({3}));
  int32_t ones = const_tensor(g, Shape::of({2, 3}), {1, 1, 1, 1, 1, 1});
  int32_t wider = g.binary("*", Op::Mul, x, ones);
  // 1/x is not x; x*c with c not all ones is kept.
  int32_t recip = g.binary("/", Op::Div, g.constant(1.0, false), x);
  int32_t scaled = g.binary("*", Op::Mul, x, const_tensor(g, Shape::of({3}), {1, 2, 1}));
  // A number times a rank-0 tensor 1 is a tensor, not the number.
  int32_t n = g.param(1, ArgSpec{});
  int32_t as_tensor = g.binary("*", Op::Mul, n, g.constant(1.0, false));
  for (int32_t out : {wider, recip, scaled, as_tensor}) g.outputs.push_back({out, false});
  auto o = optimise(g);
  for (const GraphOutput &out : o->outputs) {
    Op op = (*o)[out.node].op;
    CHECK((op == Op::Mul || op == Op::Div));
  }
  CHECK((*o)[o->outputs[0].node].shape == Shape::of({2, 3}));
  CHECK((*o)[o->outputs[3].node].is_number == false);
}

TEST_CASE("optimise: select with a constant mask picks a branch", "[optimise]") {
  Graph g;
  int32_t a = g.param(0, tensor_arg({2}));
  int32_t b = g.param(1, tensor_arg({2}));
  int32_t all_true = const_tensor(g, Shape::of({2}), {1.0, -3.0});
  int32_t all_false = const_tensor(g, Shape::of({2}), {0.0, -0.0});
  int32_t mixed = const_tensor(g, Shape::of({2}), {1.0, 0.0});
  g.outputs.push_back({g.select("select", all_true, a, b), false});
  g.outputs.push_back({g.select("select", all_false, a, b), false});
  g.outputs.push_back({g.select("select", mixed, a, b), false});
  // A scalar mask picks for every element, but only when the branch already
  // has the result's shape.
  int32_t s = g.param(2, tensor_arg({}));
  g.outputs.push_back({g.select("select", g.constant(1.0, false), s, b), false});
  auto o = optimise(g);
  CHECK(o->outputs[0].node == 0);
  CHECK(o->outputs[1].node == 1);
  CHECK((*o)[o->outputs[2].node].op == Op::Select);
  CHECK((*o)[o->outputs[3].node].op == Op::Select);
}

TEST_CASE("optimise: nodes that become identical after a rewrite merge", "[optimise]") {
  Graph g;
  int32_t x = g.param(0, tensor_arg({4}));
  int32_t y = g.param(1, tensor_arg({4}));
  int32_t one = g.constant(1.0, false);
  // exp(x*1) + exp(x) is exp(x) + exp(x) once x*1 is x: one exp node.
  int32_t e1 = g.unary(Op::Exp, g.binary("*", Op::Mul, x, one));
  int32_t e2 = g.unary(Op::Exp, x);
  g.outputs.push_back({g.binary("+", Op::Add, e1, e2), false});
  g.outputs.push_back({y, false});
  auto o = optimise(g);
  REQUIRE(o->size() == 4);  // x, y, exp, add
  const GraphNode &add = (*o)[o->outputs[0].node];
  REQUIRE(add.op == Op::Add);
  CHECK(add.in[0] == add.in[1]);
  CHECK(o->outputs[1].node == 1);
}

TEST_CASE("optimise_into reuses its output graph", "[optimise]") {
  Graph g, out;
  int32_t x = g.param(0, tensor_arg({2}));
  g.outputs.push_back({g.unary(Op::Neg, x), false});
  optimise_into(g, out);
  CHECK(out.size() == 2);
  Graph h;
  h.outputs.push_back({h.constant(5.0), true});
  optimise_into(h, out);  // cleared first: nothing of g's graph is left
  REQUIRE(out.size() == 1);
  CHECK(out[0].scalar == 5.0);
  CHECK(out.num_params == 0);
}

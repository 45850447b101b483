// test_kernel_units.cpp — the grouping of a kernel's steps into units and their
// signatures (compiler/kernel_units.h): identical layers give equal signatures
// over different slots, and anything that changes a unit's code (a shape, a
// scalar literal, an operand used twice, a transposed read) changes its
// signature. test_jit.cpp compiles a deep graph with shared units.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "compiler/autodiff.h"
#include "compiler/graph.h"
#include "compiler/kernel_plan.h"
#include "compiler/kernel_units.h"
#include "compiler/optimise.h"

using namespace kiln;

namespace {

ArgSpec tensor_spec(std::initializer_list<int64_t> dims) { return ArgSpec{Shape::of(dims), false}; }

// tanh(h W + b) for each (W, b) of the given widths, then a mean-square loss
// and its gradients: the shape of the benchmarks/compile MLP.
std::unique_ptr<Graph> mlp(int64_t batch, const std::vector<int64_t> &widths) {
  Graph g;
  int nparams = 1 + 2 * int(widths.size() - 1);
  int32_t h = g.param(0, tensor_spec({batch, widths[0]}));
  std::vector<int32_t> wrt;
  for (size_t l = 1; l < widths.size(); l++) {
    int32_t w = g.param(int(2 * l - 1), tensor_spec({widths[l - 1], widths[l]}));
    int32_t b = g.param(int(2 * l), tensor_spec({1, widths[l]}));
    wrt.push_back(w);
    wrt.push_back(b);
    h = g.unary(Op::Tanh, g.binary("test", Op::Add, g.matmul("test", h, w), b));
  }
  int32_t loss = g.reduce_all(Op::Mean, g.binary("test", Op::Mul, h, h));
  std::vector<int32_t> grads = append_gradients(g, loss, wrt);
  g.outputs.push_back(GraphOutput{loss, true});
  for (int32_t d : grads) g.outputs.push_back(GraphOutput{d, false});
  REQUIRE(g.num_params == nparams);
  return optimise(g);
}

std::vector<KernelUnit> units_of(const Graph &g) {
  return kernel_units(g, kernel_emission_order(g), operand_transposes(g));
}

}  // namespace

TEST_CASE("kernel units: every computing node in one unit, slots listed once", "[kernel_units]") {
  auto g = mlp(16, {32, 32, 32, 32});
  std::vector<KernelUnit> units = units_of(*g);
  std::vector<int> seen(size_t(g->size()), 0);
  std::vector<bool> in_place = operand_transposes(*g);
  for (const KernelUnit &u : units) {
    for (int32_t n : u.nodes) seen[size_t(n)]++;
    if (u.host >= 0) seen[size_t(u.host)]++;
    std::vector<int32_t> slots = u.slots;
    std::sort(slots.begin(), slots.end());
    CHECK(std::adjacent_find(slots.begin(), slots.end()) == slots.end());
    if (u.kind == KernelUnit::Kind::Run) CHECK(u.stored.size() == u.nodes.size());
    CHECK(u.work > 0);
  }
  for (int32_t i = 0; i < g->size(); i++) {
    INFO("node " << i << " " << op_name((*g)[i].op));
    bool computes = (*g)[i].op != Op::Param && (*g)[i].op != Op::Const && !in_place[size_t(i)];
    CHECK(seen[size_t(i)] == (computes ? 1 : 0));
  }
}

TEST_CASE("kernel units: identical layers share signatures, other shapes do not", "[kernel_units]") {
  auto deep = mlp(16, {32, 32, 32, 32, 32, 32, 32, 32, 32});  // 8 identical layers
  std::map<std::string, int> count;
  std::vector<KernelUnit> units = units_of(*deep);
  for (const KernelUnit &u : units) count[u.signature]++;
  int matmul_shared = 0;
  for (const KernelUnit &u : units)
    if (u.kind == KernelUnit::Kind::Node && (*deep)[u.nodes[0]].op == Op::Matmul && count[u.signature] >= 8)
      matmul_shared++;
  CHECK(matmul_shared >= 8 * 2);  // the forward and the input-gradient matmuls at least
  std::vector<bool> shared = shared_units(units);
  CHECK(std::count(shared.begin(), shared.end(), true) > int(units.size()) / 2);
  // Few distinct signatures: they do not grow with the depth.
  auto deeper = mlp(16, std::vector<int64_t>(17, 32));
  std::map<std::string, int> count2;
  for (const KernelUnit &u : units_of(*deeper)) count2[u.signature]++;
  CHECK(count2.size() <= count.size() + 2);

  // A layer of another width: its units are new signatures.
  auto mixed = mlp(16, {32, 32, 48, 32});
  std::map<std::string, int> mixed_count;
  for (const KernelUnit &u : units_of(*mixed)) mixed_count[u.signature]++;
  bool any_48 = false;
  for (auto &[sig, n] : mixed_count) any_48 = any_48 || sig.find("48") != std::string::npos;
  CHECK(any_48);
}

TEST_CASE("kernel units: a transposed read is in the signature", "[kernel_units]") {
  Graph g;
  int32_t x = g.param(0, tensor_spec({8, 16}));
  int32_t y = g.param(1, tensor_spec({8, 16}));
  int32_t w = g.param(2, tensor_spec({8, 4}));
  int perm[2] = {1, 0};
  int32_t xt = g.transpose(x, perm);     // read in place by its matmul
  int32_t m1 = g.matmul("test", xt, w);  // 16x8 (transposed) times 8x4
  int32_t yt = g.transpose(y, perm);     // also an output: materialised
  int32_t m2 = g.matmul("test", yt, w);
  for (int32_t o : {m1, m2, yt}) g.outputs.push_back(GraphOutput{o, false});
  std::vector<KernelUnit> units = units_of(g);
  auto sig = [&](int32_t node) {
    for (const KernelUnit &u : units)
      if (std::find(u.nodes.begin(), u.nodes.end(), node) != u.nodes.end()) return u.signature;
    return std::string("(no unit)");
  };
  CHECK(sig(m1) != sig(m2));
  CHECK(sig(xt) == "(no unit)");
  CHECK(sig(yt) != "(no unit)");
}

TEST_CASE("kernel units: single-node signatures tell literals and operand reuse apart", "[kernel_units]") {
  auto one = [](double k, bool same_operand) {
    Graph g;
    int32_t x = g.param(0, tensor_spec({8, 16}));
    int32_t y = g.param(1, tensor_spec({8, 16}));
    int32_t a = g.binary("test", Op::Mul, x, g.constant(k));
    int32_t s = g.reduce_all(Op::Sum, a);  // a Node unit on its own
    int32_t b = g.binary("test", Op::Add, a, same_operand ? a : y);
    g.outputs = {GraphOutput{s, true}, GraphOutput{b, false}};
    std::vector<KernelUnit> units = units_of(g);
    std::string all;
    for (const KernelUnit &u : units) all += u.signature + "|";
    return all;
  };
  CHECK(one(0.5, false) == one(0.5, false));
  CHECK(one(0.5, false) != one(0.25, false));
  CHECK(one(0.5, false) != one(0.5, true));
}

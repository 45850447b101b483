// test_batching.cpp — vmap's batching rules (compiler/batching.h): the nodes a
// rule records, and that a batched node's evaluation equals the per-example
// node's on every row, bit for bit (the orders of additions the rules rely on).
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "compiler/batching.h"
#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::same_bits;

namespace {

Value tensor_from(const Shape &s, const std::vector<double> &v) {
  Tensor *t = alloc_tensor(s);
  for (int64_t i = 0; i < s.size(); i++) t->data[i] = v[size_t(i)];
  return from_ptr(t);
}

std::vector<double> values(Value v) {
  if (!is_tensor(v)) return {number_as_double(v)};
  Tensor *t = tensor_of(v);
  return std::vector<double>(t->data, t->data + t->shape.size());
}

// Evaluates a one-output graph on one argument.
std::vector<double> eval1(Graph &g, int32_t out, Value arg) {
  g.outputs = {GraphOutput{out, false}};
  Value r[2];
  graph_eval(g, &arg, r);
  return values(r[0]);
}

// Mixed magnitudes and signed zeros: an order change in a sum shows in the bits.
std::vector<double> awkward(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++)
    v[size_t(i)] = (i % 3 == 0 ? 1e16 : 1.0) * (i % 2 ? -1.0 : 1.0) + 0.1 * double(i);
  v[1] = -0.0;
  return v;
}

}  // namespace

TEST_CASE("batching: move_axis and broadcast_batch", "[batching]") {
  Graph g;
  int32_t x = g.param(0, ArgSpec{Shape::of({2, 3, 4}), false});
  CHECK(g[move_axis(g, x, 2, 0)].shape == Shape::of({4, 2, 3}));
  CHECK(g[move_axis(g, x, 0, 2)].shape == Shape::of({3, 4, 2}));
  CHECK(move_axis(g, x, 1, 1) == x);  // no node for no move
  int32_t b = broadcast_batch(g, x, 5);
  CHECK(g[b].shape == Shape::of({5, 2, 3, 4}));
  CHECK(g[b].op == Op::BroadcastTo);
}

TEST_CASE("batching: a whole-tensor sum becomes a per-row sum with k_sum's bits", "[batching]") {
  const int64_t batch = 3, n = 7;
  for (Op op : {Op::Sum, Op::Mean, Op::Max}) {
    Graph g;
    int32_t xb = g.param(0, ArgSpec{Shape::of({batch, n}), false});
    GraphNode per;
    per.op = op;
    per.is_number = true;
    BatchOperand in[1] = {{xb, true}};
    int32_t r = batch_node(g, per, in, batch);
    CHECK(g[r].shape == Shape::of({batch}));
    CHECK(g[r].op == (op == Op::Sum ? Op::SumAxis : op == Op::Mean ? Op::MeanAxis : Op::MaxAxis));
    std::vector<double> data;
    for (int64_t b = 0; b < batch; b++) {
      std::vector<double> row = awkward(n + b);
      row.resize(size_t(n));
      if (b == 2) row.assign(size_t(n), -0.0);
      data.insert(data.end(), row.begin(), row.end());
    }
    std::vector<double> got = eval1(g, r, tensor_from(Shape::of({batch, n}), data));
    for (int64_t b = 0; b < batch; b++) {
      const double *row = data.data() + b * n;
      double want = op == Op::Sum ? k_sum(row, n) : op == Op::Mean ? k_mean(row, n) : k_max(row, n);
      CHECK(same_bits(got[size_t(b)], want));
    }
  }
}

TEST_CASE("batching: matmul of batched rows by an unmapped matrix is one stacked matmul", "[batching]") {
  const int64_t batch = 4, m = 2, k = 5, n = 3;
  Graph g;
  int32_t ab = g.param(0, ArgSpec{Shape::of({batch, m, k}), false});
  std::vector<double> wv = awkward(k * n);
  int32_t w = g.constant_tensor(tensor_from(Shape::of({k, n}), wv));
  GraphNode per;
  per.op = Op::Matmul;
  per.shape = Shape::of({m, n});
  BatchOperand in[2] = {{ab, true}, {w, false}};
  int32_t r = batch_node(g, per, in, batch);
  CHECK(g[r].shape == Shape::of({batch, m, n}));
  CHECK(g[r].op == Op::Reshape);
  CHECK(g[g[r].in[0]].op == Op::Matmul);
  CHECK(g[g[g[r].in[0]].in[0]].shape == Shape::of({batch * m, k}));  // no broadcast of w
  std::vector<double> av = awkward(batch * m * k);
  std::vector<double> got = eval1(g, r, tensor_from(Shape::of({batch, m, k}), av));
  std::vector<double> want(static_cast<size_t>(m * n));
  for (int64_t b = 0; b < batch; b++) {
    k_matmul_reference(av.data() + b * m * k, wv.data(), want.data(), m, k, n);
    for (int64_t i = 0; i < m * n; i++) CHECK(same_bits(got[size_t(b * m * n + i)], want[size_t(i)]));
  }
}

TEST_CASE("batching: rules keep each example's layout", "[batching]") {
  Graph g;
  int32_t xb = g.param(0, ArgSpec{Shape::of({3, 2, 4}), false});
  BatchOperand in[1] = {{xb, true}};
  GraphNode t;
  t.op = Op::Transpose;
  t.shape = Shape::of({4, 2});
  t.perm[0] = 1;
  t.perm[1] = 0;
  int32_t tr = batch_node(g, t, in, 3);
  CHECK(g[tr].shape == Shape::of({3, 4, 2}));
  CHECK((g[tr].perm[0] == 0 && g[tr].perm[1] == 2 && g[tr].perm[2] == 1));
  GraphNode s;
  s.op = Op::SumAxis;
  s.axis = 1;
  s.keepdims = true;
  s.shape = Shape::of({2, 1});
  int32_t sa = batch_node(g, s, in, 3);
  CHECK(g[sa].axis == 2);
  CHECK(g[sa].shape == Shape::of({3, 2, 1}));
  GraphNode sl;
  sl.op = Op::Slice;
  sl.axis = 1;
  sl.offset = 1;
  sl.shape = Shape::of({2, 2});
  int32_t sli = batch_node(g, sl, in, 3);
  CHECK(g[sli].axis == 2);
  CHECK(g[sli].offset == 1);
  // a rank-0 per-example operand of a binary op lines its batch axis up with the result's
  int32_t vb = g.param(1, ArgSpec{Shape::of({3}), false});
  int32_t u = g.param(2, ArgSpec{Shape::of({2, 4}), false});
  GraphNode add;
  add.op = Op::Add;
  add.shape = Shape::of({2, 4});
  BatchOperand two[2] = {{vb, true}, {u, false}};
  int32_t a = batch_node(g, add, two, 3);
  CHECK(g[a].shape == Shape::of({3, 2, 4}));
  CHECK(g[g[a].in[0]].shape == Shape::of({3, 1, 1}));
}

TEST_CASE("batching: a mapped key for random numbers is refused by name", "[batching]") {
  Graph g;
  int32_t kb = g.param(0, ArgSpec{Shape::of({3}), false});
  GraphNode r;
  r.op = Op::Random;
  r.shape = Shape::of({2});
  BatchOperand in[1] = {{kb, true}};
  std::string message;
  try {
    batch_node(g, r, in, 3);
  } catch (const LispError &) {
    message = error_message_of(g_raised);
  }
  CHECK(message.find("vmap: random numbers drawn from a mapped key") != std::string::npos);
}

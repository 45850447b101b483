// test_batch_family.cpp — batch families (compiler/batch_family.h, docs/jit.md
// "Batch families"): finding a family from two graphs, checking members,
// refusing what the lowerings cannot take, and a family's kernel running
// members of other leading sizes bit for bit as the interpreter does (with one
// to three threads) without a compile of its own.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>
#include <string>

#include "compiler/batch_family.h"
#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "compiler/kernel_object.h"
#include "compiler/kernel_plan.h"
#include "compiler/tree.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::same_bits;

namespace {

struct CacheOff {
  CacheOff() { setenv("KILN_CACHE_DIR", "off", 1); }
  ~CacheOff() { unsetenv("KILN_CACHE_DIR"); }
};

Value *gc_values(size_t n) { return static_cast<Value *>(gc_alloc(sizeof(Value) * (n ? n : 1))); }

Value filled(const Shape &s, int64_t off) {
  Tensor *t = alloc_tensor(s);
  for (int64_t i = 0; i < t->size; i++) t->data[i] = double((7 * i + off) % 17 - 8) / 8.0 * 0.1 + 0.003;
  return from_ptr(t);
}

// A layer's step at leading size n (x n x d, w d x h, b h): the shapes of a
// forward and backward pass: relu(x w + b), its mean (a Mean node), the
// gradient scale 1/(n h) as folding leaves it, a division by the count n h,
// x^T g (the transpose read in place, inner length n), the bias gradient
// (sum-to over the batch), a mean and a max along the batch axis, an argmax
// along the rows, and a one-hot of n labels (take of a fixed table).
std::unique_ptr<Graph> layer_graph(int64_t n, int64_t d, int64_t h, bool materialised_transpose = false) {
  auto g = std::make_unique<Graph>();
  Shape xs = Shape::of({n, d}), ws = Shape::of({d, h}), bs = Shape::of({h}), ls = Shape::of({n});
  int32_t x = g->param(0, ArgSpec{xs, false});
  int32_t w = g->param(1, ArgSpec{ws, false});
  int32_t b = g->param(2, ArgSpec{bs, false});
  int32_t labels = g->param(3, ArgSpec{ls, false});
  int32_t y = g->unary(Op::Relu, g->binary("t", Op::Add, g->matmul("t", x, w), b));
  int32_t scaled = g->binary("t", Op::Mul, y, g->constant(1.0 / double(n * h)));
  int32_t divided = g->binary("t", Op::Div, y, g->constant(double(n * h)));
  int perm[2] = {1, 0};
  int32_t xt = g->transpose(x, perm);
  Tensor *eye = alloc_tensor(Shape::of({h, h}));
  for (int64_t i = 0; i < h * h; i++) eye->data[i] = i % (h + 1) == 0 ? 1.0 : 0.0;
  int32_t onehot = g->take(g->constant_tensor(from_ptr(eye)), labels, 0);
  for (int32_t o :
       {g->reduce_all(Op::Mean, y), scaled, divided, g->matmul("t", xt, scaled), g->sum_to(divided, bs),
        g->reduce_axis(Op::MeanAxis, y, 0, false), g->reduce_axis(Op::MaxAxis, y, 0, true), g->argmax(y, 1),
        g->binary("t", Op::Mul, onehot, y)})
    g->outputs.push_back(GraphOutput{o, o == 0});
  if (materialised_transpose) g->outputs.push_back(GraphOutput{xt, false});
  return g;
}

std::vector<ArgSpec> layer_specs(int64_t n, int64_t d, int64_t h) {
  return {ArgSpec{Shape::of({n, d}), false}, ArgSpec{Shape::of({d, h}), false},
          ArgSpec{Shape::of({h}), false}, ArgSpec{Shape::of({n}), false}};
}

Value *layer_args(int64_t n, int64_t d, int64_t h) {
  Value *args = gc_values(4);
  args[0] = filled(Shape::of({n, d}), n);
  args[1] = filled(Shape::of({d, h}), 3);
  args[2] = filled(Shape::of({h}), 5);
  Tensor *l = alloc_tensor(Shape::of({n}));
  for (int64_t i = 0; i < n; i++) l->data[i] = double((i * 5) % h);
  args[3] = from_ptr(l);
  return args;
}

// A flat layout returning every output of g as a list.
TreeLayout *all_outputs(const Graph &g) {
  TreeLayout *t = flat_layout(g.num_params, false);
  Value skeleton = NIL;
  for (size_t o = 0; o < g.outputs.size(); o++) skeleton = cons(TRUE_V, skeleton);
  t->out_skeleton = skeleton;
  return t;
}

void check_outputs(Value got, const Graph &g, Value *args) {
  Value *want = gc_values(g.outputs.size());
  graph_eval(g, args, want);
  size_t i = 0;
  for (; is_pair(got); got = cdr(got), i++) {
    INFO("output " << i);
    CHECK(same_bits(car(got), want[i]));
  }
  CHECK(i == g.outputs.size());
}

}  // namespace

TEST_CASE("batch family: found from two traces and members checked", "[jit][batch-family]") {
  auto g32 = layer_graph(32, 5, 7), g31 = layer_graph(31, 5, 7);
  BatchFamily f;
  REQUIRE(find_batch_family(*g32, 32, *g31, 31, f));
  CHECK(f.rows == 32);
  CHECK(f.axis[0] == 0);   // x
  CHECK(f.axis[1] == -1);  // w
  CHECK(f.axis[3] == 0);   // labels
  int scaled = 0, products = 0;
  for (int32_t i = 0; i < g32->size(); i++)
    if (f.scale[size_t(i)]) {
      CHECK(f.scale[size_t(i)] == 7);
      (f.numer[size_t(i)] != 0.0 ? scaled : products)++;
      double v = f.value_at(i, 32);
      CHECK(same_bits(v, (*g32)[i].scalar));
    }
  CHECK(scaled == 1);
  CHECK(products == 1);
  // The transposed x has the batch on its last axis.
  bool last_axis = false;
  for (int32_t i = 0; i < g32->size(); i++)
    last_axis |= (*g32)[i].op == Op::Transpose && f.axis[size_t(i)] == 1;
  CHECK(last_axis);

  CHECK(in_batch_family(*g32, f, *layer_graph(29, 5, 7), 29));
  CHECK(in_batch_family(*g32, f, *layer_graph(3, 5, 7), 3));
  CHECK_FALSE(in_batch_family(*g32, f, *layer_graph(33, 5, 7), 33));  // larger than N
  CHECK_FALSE(in_batch_family(*g32, f, *layer_graph(29, 5, 8), 29));  // another width
  CHECK_FALSE(in_batch_family(*g32, f, *layer_graph(29, 5, 7), 28));  // not its size

  // Graphs that differ otherwise are no family: another width, a size that is
  // not the leading one, constants not derived from the size.
  CHECK_FALSE(find_batch_family(*g32, 32, *layer_graph(31, 5, 8), 31, f));
  CHECK_FALSE(find_batch_family(*layer_graph(6, 6, 7), 6, *layer_graph(5, 5, 7), 5, f));
  auto c1 = std::make_unique<Graph>(), c2 = std::make_unique<Graph>();
  for (auto [gr, n] : {std::pair{c1.get(), 4}, std::pair{c2.get(), 3}}) {
    int32_t x = gr->param(0, ArgSpec{Shape::of({n, 2}), false});
    gr->outputs.push_back(GraphOutput{gr->binary("t", Op::Mul, x, gr->constant(n == 4 ? 0.5 : 0.25)), false});
  }
  CHECK_FALSE(find_batch_family(*c1, 4, *c2, 3, f));
}

TEST_CASE("batch family: what the lowerings cannot take is refused", "[jit][batch-family]") {
  BatchFamily f;
  auto g = layer_graph(16, 5, 7, true), g15 = layer_graph(15, 5, 7, true);
  REQUIRE(find_batch_family(*g, 16, *g15, 15, f));
  std::string why;
  CHECK_FALSE(family_lowerable(*g, plan_kernel(*g), f, &why));
  CHECK(why.find("transpose") != std::string::npos);
  auto ok = layer_graph(16, 5, 7), ok15 = layer_graph(15, 5, 7);
  REQUIRE(find_batch_family(*ok, 16, *ok15, 15, f));
  CHECK(family_lowerable(*ok, plan_kernel(*ok), f, &why));
  CHECK_FALSE(batch_family_key(f).empty());
}

TEST_CASE("batch family: one kernel runs every member bit for bit with any thread count",
          "[jit][batch-family]") {
  CacheOff off;
  int saved_threads = compute_threads();
  struct Dims {
    int64_t rows, d, h;
  };
  // 64 x 300 x 200 is above the parallel matmul crossover: chunks of rows, the
  // last one partial at run time.
  for (Dims dims : {Dims{32, 5, 7}, Dims{64, 300, 200}}) {
    auto g = layer_graph(dims.rows, dims.d, dims.h);
    auto probe = layer_graph(dims.rows - 1, dims.d, dims.h);
    auto family = std::make_unique<BatchFamily>();
    REQUIRE(find_batch_family(*g, dims.rows, *probe, dims.rows - 1, *family));
    std::vector<ArgSpec> specs = layer_specs(dims.rows, dims.d, dims.h);
    TreeLayout *trees = all_outputs(*g);
    Value k = make_kernel("family", std::move(g), specs.data(), trees, std::move(family), false);
    REQUIRE(last_kernel_build().compiled);
    REQUIRE(kernel_family(k) != nullptr);
    for (int64_t n : {dims.rows, dims.rows - 3, int64_t(13), int64_t(8), int64_t(3), int64_t(2)}) {
      auto gn = layer_graph(n, dims.d, dims.h);
      INFO("rows " << n << " of " << dims.rows << ", width " << dims.h);
      REQUIRE(in_batch_family(*as<Kernel>(k)->graph, *kernel_family(k), *gn, n));
      Value *args = layer_args(n, dims.d, dims.h);
      std::vector<ArgSpec> sn = layer_specs(n, dims.d, dims.h);
      const Graph &graph = *gn;
      Value member =
          n == dims.rows ? k : make_family_member(k, std::move(gn), sn.data(), all_outputs(graph), n);
      CHECK(kernel_ready(member));  // the family's code: no compile of its own
      const Graph &mg = *as<Kernel>(member)->graph;
      for (int threads : {1, 2, 3}) {
        set_compute_threads(threads);
        INFO("rows " << n << " of " << dims.rows << ", width " << dims.h << ", " << threads << " threads");
        check_outputs(g_type_hooks[kernel_type()].apply(member, 4, args), mg, args);
      }
    }
  }
  set_compute_threads(saved_threads);
}

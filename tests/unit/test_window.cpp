// test_window.cpp — convolutions, pooling and batched matmul (runtime/window.h,
// compiler/window_graph.h, k_matmul_batched): the eager loops against the
// plainest loops in the documented orders, bit for bit, with 1 and 3 threads;
// the traced composite under graph_eval and compiled against the eager loops.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "compiler/kernel_object.h"
#include "compiler/window_graph.h"
#include "runtime/object.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "runtime/window.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::Nans;
using kiln::test::same_bits;

namespace {

// Random values with ties, signed zeros and (where `special`) NaN and infinities.
void fill(std::mt19937_64 &rng, double *d, int64_t n, bool special) {
  std::uniform_int_distribution<int> pick(0, 39);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int64_t i = 0; i < n; i++) {
    int r = pick(rng);
    d[i] = r < 3 ? 0.5 : r == 3 ? -0.0 : r == 4 ? 0.0 : u(rng);
    if (special && r == 5) d[i] = NAN;
    if (special && r == 6) d[i] = INFINITY;
    if (special && r == 7) d[i] = -INFINITY;
  }
}

Value pair_value(int64_t a, int64_t b) { return cons(make_int(a), cons(make_int(b), NIL)); }

// The orders of window.h, as the plainest loops over Window::source.
std::vector<double> reference(const Window &g, const double *x, const double *w) {
  std::vector<double> out(static_cast<size_t>(g.out.size()));
  bool conv = window_is_conv(g.op), max = g.op == WindowOp::MaxPool2d;
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t o = 0; o < g.o; o++)
      for (int64_t y = 0; y < g.oh; y++)
        for (int64_t q = 0; q < g.ow; q++) {
          double acc = 0.0;
          bool first = true;
          for (int64_t c = 0; c < (conv ? g.c : 1); c++)
            for (int64_t ky = 0; ky < g.kh; ky++)
              for (int64_t kx = 0; kx < g.kw; kx++) {
                int64_t s = g.source(y, q, ky, kx);
                const double *plane = x + (n * g.c + (conv ? c : o)) * g.h * g.w;
                double v = s >= 0 ? plane[s] : max ? -INFINITY : 0.0;
                if (conv) acc = acc + w[((o * g.c + c) * g.kh + ky) * g.kw + kx] * v;
                else if (!max) acc = acc + v;
                else if (first) acc = v;
                else if (v > acc || v != v) acc = v;
                first = false;
              }
          out[size_t(((n * g.o + o) * g.oh + y) * g.ow + q)] = max || conv ? acc : acc / double(g.kh * g.kw);
        }
  return out;
}

struct Case {
  WindowOp op;
  Shape x, w;  // w unused by pools
  int64_t k[2], s[2], p[2], d[2];
};

Window window_of(const Case &c) {
  if (window_is_conv(c.op)) {
    bool one = c.op == WindowOp::Conv1d;
    Value extra[3] = {one ? make_int(c.s[1]) : pair_value(c.s[0], c.s[1]),
                      one ? make_int(c.p[1]) : pair_value(c.p[0], c.p[1]),
                      one ? make_int(c.d[1]) : pair_value(c.d[0], c.d[1])};
    return conv_window(c.op, c.x, c.w, 5, extra);
  }
  Value args[3] = {pair_value(c.k[0], c.k[1]), pair_value(c.s[0], c.s[1]), pair_value(c.p[0], c.p[1])};
  return pool_window(c.op, c.x, 4, args);
}

const Case kCases[] = {
    {WindowOp::Conv2d, Shape::of({2, 3, 7, 6}), Shape::of({4, 3, 3, 2}), {3, 2}, {1, 1}, {0, 0}, {1, 1}},
    {WindowOp::Conv2d, Shape::of({2, 3, 9, 7}), Shape::of({2, 3, 3, 2}), {3, 2}, {2, 1}, {1, 2}, {2, 1}},
    {WindowOp::Conv2d, Shape::of({1, 1, 5, 5}), Shape::of({3, 1, 5, 5}), {5, 5}, {3, 3}, {2, 2}, {1, 1}},
    // large enough to be split over threads
    {WindowOp::Conv2d, Shape::of({8, 16, 17, 15}), Shape::of({16, 16, 3, 3}), {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {WindowOp::Conv1d, Shape::of({2, 3, 11}), Shape::of({5, 3, 3}), {1, 3}, {1, 2}, {0, 1}, {1, 2}},
    {WindowOp::MaxPool2d, Shape::of({2, 3, 7, 6}), Shape(), {2, 2}, {2, 2}, {0, 0}, {1, 1}},
    {WindowOp::MaxPool2d, Shape::of({2, 2, 7, 6}), Shape(), {3, 3}, {2, 1}, {1, 1}, {1, 1}},
    {WindowOp::MaxPool2d, Shape::of({64, 32, 30, 30}), Shape(), {3, 2}, {1, 1}, {1, 1}, {1, 1}},
    {WindowOp::AvgPool2d, Shape::of({2, 3, 7, 6}), Shape(), {3, 2}, {3, 2}, {0, 0}, {1, 1}},
    {WindowOp::AvgPool2d, Shape::of({1, 2, 6, 7}), Shape(), {3, 3}, {2, 2}, {1, 1}, {1, 1}},
    {WindowOp::AvgPool2d, Shape::of({64, 32, 30, 30}), Shape(), {2, 3}, {1, 2}, {1, 1}, {1, 1}},
};

}  // namespace

TEST_CASE("conv and pool loops follow the documented order on 1 and 3 threads", "[window]") {
  std::mt19937_64 rng(28);
  for (const Case &c : kCases)
    for (bool special : {false, true}) {
      Window g = window_of(c);
      std::vector<double> x(static_cast<size_t>(c.x.size())), w(static_cast<size_t>(c.w.size()));
      fill(rng, x.data(), c.x.size(), special);
      fill(rng, w.data(), c.w.size(), false);
      std::vector<double> want = reference(g, x.data(), w.data());
      for (int threads : {1, 3}) {
        set_compute_threads(threads);
        std::vector<double> got(want.size(), 7.0);
        if (window_is_conv(g.op)) k_conv(x.data(), w.data(), got.data(), g);
        else k_pool(x.data(), got.data(), g);
        INFO(window_op_name(g.op) << " input " << shape_string(c.x) << " threads " << threads);
        CHECK(same_bits(got.data(), want.data(), int64_t(want.size()), Nans::AnyPayload));
      }
    }
  set_compute_threads(1);
}

TEST_CASE("the traced composite gives the eager loop's bits, interpreted and compiled", "[window]") {
  std::mt19937_64 rng(29);
  for (const Case &c : kCases) {
    if (c.x.size() > 20000) continue;  // the small cases suffice here
    Window g = window_of(c);
    bool conv = window_is_conv(g.op);
    Tensor *x = alloc_tensor(c.x);
    fill(rng, x->data, x->size, true);
    Tensor *w = alloc_tensor(conv ? c.w : Shape::of({1}));
    fill(rng, w->data, w->size, false);
    Tensor *want = alloc_tensor(g.out);
    if (conv) k_conv(x->data, w->data, want->data, g);
    else k_pool(x->data, want->data, g);

    auto graph = std::make_unique<Graph>();
    ArgSpec specs[2] = {ArgSpec{c.x, false}, ArgSpec{w->shape, false}};
    int32_t xn = graph->param(0, specs[0]), wn = graph->param(1, specs[1]);
    graph->outputs.push_back({record_window(*graph, g, xn, conv ? wn : -1), false});
    graph->num_params = 2;
    Value *args = static_cast<Value *>(gc_alloc(sizeof(Value) * 3));
    args[0] = from_ptr(x);
    args[1] = from_ptr(w);
    Value *got = static_cast<Value *>(gc_alloc(sizeof(Value)));
    graph_eval(*graph, args, got);
    INFO(window_op_name(g.op) << " input " << shape_string(c.x));
    REQUIRE(tensor_of(got[0])->shape == g.out);
    CHECK(same_bits(tensor_of(got[0])->data, want->data, want->size, Nans::AnyPayload));
    Value k = make_kernel("window", std::move(graph), specs, true);
    Value r = g_type_hooks[kernel_type()].apply(k, 2, args);
    Value out = is_pair(r) ? car(r) : r;
    CHECK(same_bits(tensor_of(out)->data, want->data, want->size, Nans::AnyPayload));
  }
}

TEST_CASE("k_matmul_batched is k_matmul_reference per broadcast item", "[window][matmul]") {
  std::mt19937_64 rng(30);
  struct MM {
    Shape ab, bb, batch;
    int64_t m, k, n;
  };
  const MM cases[] = {
      {Shape::of({2, 3}), Shape::of({3}), Shape::of({2, 3}), 4, 5, 6},
      {Shape::of({2, 1}), Shape::of({1, 3}), Shape::of({2, 3}), 5, 3, 7},
      {Shape::of({4}), Shape(), Shape::of({4}), 3, 2, 5},
      {Shape::of({64}), Shape::of({64}), Shape::of({64}), 33, 40, 35},  // threads take whole items
      {Shape::of({2}), Shape::of({2}), Shape::of({2}), 200, 150, 130},  // threads take rows
  };
  for (const MM &c : cases) {
    int64_t na = c.ab.size() * c.m * c.k, nb = c.bb.size() * c.k * c.n, items = c.batch.size();
    std::vector<double> a(static_cast<size_t>(na)), b(static_cast<size_t>(nb));
    fill(rng, a.data(), na, true);
    fill(rng, b.data(), nb, false);
    // Each item's operands by the broadcast rule, written out.
    std::vector<double> want(static_cast<size_t>(items * c.m * c.n));
    for (int64_t i = 0; i < items; i++) {
      int64_t ia = 0, ib = 0, rest = i, sa = 1, sb = 1;
      for (int d = c.batch.rank - 1; d >= 0; d--) {
        int64_t idx = rest % c.batch.dim[d];
        rest /= c.batch.dim[d];
        int da = d - (c.batch.rank - c.ab.rank), db = d - (c.batch.rank - c.bb.rank);
        if (da >= 0) {
          ia += (c.ab.dim[da] == 1 ? 0 : idx) * sa;
          sa *= c.ab.dim[da];
        }
        if (db >= 0) {
          ib += (c.bb.dim[db] == 1 ? 0 : idx) * sb;
          sb *= c.bb.dim[db];
        }
      }
      k_matmul_reference(a.data() + ia * c.m * c.k, b.data() + ib * c.k * c.n, want.data() + i * c.m * c.n,
                         c.m, c.k, c.n);
    }
    for (int threads : {1, 3}) {
      set_compute_threads(threads);
      std::vector<double> got(want.size(), 7.0);
      k_matmul_batched(a.data(), c.ab, b.data(), c.bb, got.data(), c.batch, c.m, c.k, c.n);
      INFO("batch " << shape_string(c.batch) << " threads " << threads);
      CHECK(same_bits(got.data(), want.data(), int64_t(want.size()), Nans::AnyPayload));
    }
  }
  set_compute_threads(1);
}

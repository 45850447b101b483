// test_loop.cpp — the Loop node's internals (compiler/loop.h): run_loop on a body
// graph built by hand against the same arithmetic in C++, the body as an
// attribute (hashing, the cache key's text), append_vjp's seeds, and one node
// whatever the trip count.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/autodiff.h"
#include "compiler/codegen.h"
#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "compiler/graph_text.h"
#include "compiler/jit_context.h"
#include "compiler/kernel_object.h"
#include "compiler/kernel_plan.h"
#include "compiler/loop.h"
#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::same_bits;

namespace {

std::string run(const char *src) { return write_string(eval_string(src, "loop-test")); }

// c' = c * k + i, k captured: a fori-loop body.
std::shared_ptr<LoopBody> affine_loop(int64_t trips) {
  auto L = std::make_shared<LoopBody>();
  L->kind = LoopKind::Fori;
  L->trips = trips;
  L->carry = {LeafSpec{Shape{}, true}};
  L->captures = {LeafSpec{Shape{}, true}};
  auto b = std::make_shared<Graph>();
  int32_t i = b->param(0, ArgSpec{Shape{}, true});
  int32_t c = b->param(1, ArgSpec{Shape{}, true});
  int32_t k = b->param(2, ArgSpec{Shape{}, true});
  b->outputs = {{b->binary("t", Op::Add, b->binary("t", Op::Mul, c, k), i), true}};
  L->body = b;
  return L;
}

}  // namespace

TEST_CASE("loop: run_loop steps the body graph with the same arithmetic as a C++ loop", "[loop]") {
  auto L = affine_loop(6);
  double carry = 1.25, k = 0.75, out = 0.0;
  REQUIRE(run_loop(*L, &carry, &k, &out));
  double want = 1.25;
  for (int i = 0; i < 6; i++) want = want * 0.75 + double(i);
  CHECK(same_bits(out, want));

  // Reversed, with the carries saved: steps 5..0, each step's incoming carry at its index.
  auto R = std::make_shared<LoopBody>(*L);
  R->reverse = true;
  R->save_carries = true;
  REQUIRE(R->result_size() == 1 + 6);
  double outs[7];
  REQUIRE(run_loop(*R, &carry, &k, outs));
  double c = 1.25;
  for (int t = 5; t >= 0; t--) {
    CHECK(outs[1 + t] == c);
    c = c * 0.75 + double(t);
  }
  CHECK(outs[0] == c);
}

TEST_CASE("loop: the body is an attribute: hashing and the cache key's text tell bodies apart", "[loop]") {
  auto a = affine_loop(3), b = affine_loop(4);
  Graph g;
  int32_t c = g.param(0, ArgSpec{Shape::of({1}), false});
  int32_t k = g.param(1, ArgSpec{Shape::of({1}), false});
  auto node = [&](const LoopBody *L) {
    GraphNode n;
    n.op = Op::Loop;
    n.loop = L;
    n.in[0] = c;
    n.in[1] = k;
    n.shape = Shape::of({1});
    return g.record(n);
  };
  int32_t na = node(a.get()), nb = node(b.get());
  CHECK(na != nb);
  CHECK(node(a.get()) == na);
  g.outputs = {{na, false}};
  std::string ta = graph_canonical_text(g);
  g.outputs = {{nb, false}};
  CHECK(ta.find("trips 3") != std::string::npos);
  CHECK(graph_canonical_text(g).find("trips 4") != std::string::npos);
  // The graph keeps the bodies alive once the caller's references are gone.
  const LoopBody *raw = a.get();
  a.reset();
  double carry = 2.0, kk = 0.5, out = 0.0;
  REQUIRE(run_loop(*raw, &carry, &kk, &out));
  CHECK(out == ((2.0 * 0.5 + 0) * 0.5 + 1) * 0.5 + 2);
}

TEST_CASE("loop: append_vjp seeds each output with its own adjoint", "[loop]") {
  Graph g;
  int32_t x = g.param(0, ArgSpec{Shape::of({2}), false});
  int32_t s = g.param(1, ArgSpec{Shape::of({2}), false});
  int32_t t = g.param(2, ArgSpec{Shape::of({2}), false});
  int32_t sq = g.binary("t", Op::Mul, x, x), ex = g.unary(Op::Exp, x);
  std::vector<int32_t> d = append_vjp(g, {sq, ex}, {s, t}, {x});
  g.outputs = {{d[0], false}};
  Value args[3] = {eval_string("(tensor '(0.5 -2.0))", "t"), eval_string("(tensor '(3.0 1.0))", "t"),
                   eval_string("(tensor '(0.25 4.0))", "t")};
  Value r;
  graph_eval(g, args, &r);
  // Mul's rule gives s*x twice (one per operand), then exp's t*exp(x) is added.
  double x0 = 0.5, x1 = -2.0;
  std::string want = "#<tensor 2 [" + write_string(make_double((3.0 * x0 + 3.0 * x0) + 0.25 * std::exp(x0))) +
                     " " + write_string(make_double((1.0 * x1 + 1.0 * x1) + 4.0 * std::exp(x1))) + "]>";
  CHECK(write_string(r) == want);
}

TEST_CASE("loop: one loop node whatever the trip count, and a traced N is refused", "[loop]") {
  // The param, its flat reshape, the placeholder for no captured values, the loop
  // and the reshape taking the number out.
  CHECK(run("(list (graph-node-count (lambda (x) (fori-loop 10 (lambda (i c) (* c 0.5)) x)) 1.0)"
            " (graph-node-count (lambda (x) (fori-loop 100000 (lambda (i c) (* c 0.5)) x)) 1.0))") ==
        "(5 5)");
  CHECK(run("(guard (e (#t (error-object-message e))) (graph-eval (lambda (n) (fori-loop n (lambda (i c) c) "
            "1.0)) 2.0))")
            .find("N must be an exact integer known while tracing") != std::string::npos);
}

namespace {

// A graph of one Loop node over a 1-element carry and a 1-element capture.
std::unique_ptr<Graph> loop_graph(const LoopBody &L) {
  auto g = std::make_unique<Graph>();
  int32_t c = g->param(0, ArgSpec{Shape::of({1}), false});
  int32_t k = g->param(1, ArgSpec{Shape::of({1}), false});
  GraphNode n;
  n.op = Op::Loop;
  n.loop = &L;
  n.in[0] = c;
  n.in[1] = k;
  n.shape = Shape::of({L.result_size()});
  g->keep_loop(&L);
  g->outputs = {{g->record(n), false}};
  return g;
}

// The C libgccjit makes of a graph's kernel (gcc_jit_context_dump_to_file).
std::string kernel_source(const Graph &g) {
  gcc_jit_context *ctx = jit_new_context();
  KernelLayout plan = plan_kernel(g);
  emit_kernel(ctx, g, plan);
  std::string path =
      std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/kiln_loop_test.c";
  gcc_jit_context_dump_to_file(ctx, path.c_str(), 0);
  gcc_jit_context_release(ctx);
  std::string text;
  if (FILE *f = std::fopen(path.c_str(), "r")) {
    char buf[4096];
    for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, got);
    std::fclose(f);
  }
  std::remove(path.c_str());
  return text;
}

size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
  return n;
}

}  // namespace

TEST_CASE("loop: a kernel runs a Loop node as a native loop, bit for bit with run_loop", "[loop]") {
  for (int64_t trips : {0, 1, 6, 1000}) {
    for (bool reverse : {false, true}) {
      auto L = affine_loop(trips);
      L->reverse = reverse;
      L->save_carries = reverse;
      INFO("trips " << trips << (reverse ? ", reversed, carries saved" : ""));
      auto g = loop_graph(*L);
      KernelLayout plan = plan_kernel(*g);
      REQUIRE(plan.loops.size() == 1);
      CHECK(plan.loops[0].body->num_params == 3);
      CHECK(!plan.loops[0].cond);
      Tensor *c = alloc_tensor(Shape::of({1})), *k = alloc_tensor(Shape::of({1}));
      c->data[0] = 1.25;
      k->data[0] = 0.75;
      std::vector<double> want(size_t(L->result_size()));
      REQUIRE(run_loop(*L, c->data, k->data, want.data()));
      ArgSpec specs[2] = {{Shape::of({1}), false}, {Shape::of({1}), false}};
      Value kernel = make_kernel("loop", std::move(g), specs, true);
      REQUIRE(last_kernel_build().compiled);
      Value *argv = static_cast<Value *>(gc_alloc(2 * sizeof(Value)));
      argv[0] = from_ptr(c);
      argv[1] = from_ptr(k);
      Value got = car(g_type_hooks[kernel_type()].apply(kernel, 2, argv));
      REQUIRE(tensor_of(got)->size == L->result_size());
      CHECK(same_bits(tensor_of(got)->data, want.data(), int64_t(want.size())));
    }
  }
}

TEST_CASE("loop: the body's code is emitted once, whatever the trip count", "[loop]") {
  auto few = affine_loop(2), many = affine_loop(10000);
  std::string a = kernel_source(*loop_graph(*few)), b = kernel_source(*loop_graph(*many));
  CHECK(count_of(a, "kiln_loop_body") == 2);  // its definition and its one call
  CHECK(count_of(b, "kiln_loop_body") == 2);
  // Only the trip count's digits differ.
  CHECK(b.size() - a.size() <= 8);
}

// test_collective.cpp — the Allreduce node (compiler/collective.h) without MPI: a fake
// exchange stands in for the processes, so the interpreter and a compiled kernel can be
// checked to make the same exchanges (sizes, reductions, 64-bit signatures) and give the
// same bits, and a failed exchange to be raised after the kernel returns.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/collective.h"
#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "compiler/kernel_object.h"
#include "compiler/optimise.h"
#include "runtime/error.h"
#include "runtime/gc.h"
#include "runtime/tensor.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::same_bits;

namespace {

struct Call {
  int64_t n;
  ReduceKind kind;
  uint64_t signature;
};
std::vector<Call> g_calls;
uint64_t g_bad_signature = 0;

// Three processes holding the same values: a sum is 3x, a mean x, a max x (+ 0.5
// for max, so the three are told apart).
std::string fake_exchange(const double *in, double *out, int64_t n, ReduceKind kind, uint64_t signature) {
  g_calls.push_back(Call{n, kind, signature});
  if (signature == g_bad_signature) return "fake: the trees differ";
  for (int64_t i = 0; i < n; i++)
    out[i] = kind == ReduceKind::Sum ? in[i] * 3.0 : kind == ReduceKind::Mean ? in[i] : in[i] + 0.5;
  return "";
}

struct FakeExchange {
  AllreduceExchange previous;
  FakeExchange() : previous(set_allreduce_exchange(fake_exchange)) {
    g_calls.clear();
    g_bad_signature = 0;
    setenv("KILN_CACHE_DIR", "off", 1);
  }
  ~FakeExchange() {
    set_allreduce_exchange(previous);
    unsetenv("KILN_CACHE_DIR");
  }
};

Value *gc_values(size_t n) { return static_cast<Value *>(gc_alloc(sizeof(Value) * (n ? n : 1))); }

// x (2x3) -> (allreduce-sum(x) * 2, allreduce-mean(sum x), allreduce-max(1.5))
std::unique_ptr<Graph> exchange_graph() {
  auto g = std::make_unique<Graph>();
  int32_t x = g->param(0, ArgSpec{Shape::of({2, 3}), false});
  int32_t a = g->allreduce(x, int(ReduceKind::Sum), 0xF00D000000000001ull);  // high bit: unsigned all the way
  int32_t twice = g->binary("test", Op::Mul, a, g->constant(2.0));
  int32_t b = g->allreduce(g->reduce_all(Op::Sum, x), int(ReduceKind::Mean), 42);
  int32_t c = g->allreduce(g->constant(1.5), int(ReduceKind::Max), 7);  // a constant: passed through a local
  g->outputs.push_back(GraphOutput{twice, false});
  g->outputs.push_back(GraphOutput{b, true});
  g->outputs.push_back(GraphOutput{c, true});
  return g;
}

Value input() {
  Tensor *t = alloc_tensor(Shape::of({2, 3}));
  for (int i = 0; i < 6; i++) t->data[i] = 0.1 * (i + 1);
  return from_ptr(t);
}

std::string caught_message(const std::function<void()> &f) {
  try {
    f();
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("collective: interpreter and kernel make the same exchanges, bit for bit", "[jit]") {
  FakeExchange fake;
  Value *args = gc_values(1);
  args[0] = input();
  Value *want = gc_values(3);
  graph_eval(*exchange_graph(), args, want);
  std::vector<Call> interpreted = g_calls;
  REQUIRE(interpreted.size() == 3);
  Tensor *w = tensor_of(want[0]);
  for (int i = 0; i < 6; i++) CHECK(w->data[i] == (0.1 * (i + 1)) * 3.0 * 2.0);
  CHECK(number_as_double(want[2]) == 2.0);

  ArgSpec spec{Shape::of({2, 3}), false};
  Value k = make_kernel("exchange", exchange_graph(), &spec, true);
  REQUIRE(last_kernel_build().compiled);
  g_calls.clear();
  Value got = g_type_hooks[kernel_type()].apply(k, 1, args);
  REQUIRE(g_calls.size() == 3);
  // The same exchanges, whatever order the kernel plan runs them in.
  for (const Call &c : interpreted) {
    bool found = false;
    for (const Call &d : g_calls)
      found = found || (d.n == c.n && d.kind == c.kind && d.signature == c.signature);
    INFO("signature " << c.signature);
    CHECK(found);
  }
  Tensor *t = tensor_of(car(got));
  CHECK(same_bits(t->data, w->data, 6));
  CHECK(number_as_double(car(cdr(got))) == number_as_double(want[1]));
  CHECK(number_as_double(car(cdr(cdr(got)))) == 2.0);
}

TEST_CASE("collective: a failed exchange is raised once the kernel or graph returns", "[jit]") {
  FakeExchange fake;
  g_bad_signature = 42;
  Value *args = gc_values(1);
  args[0] = input();
  Value *out = gc_values(3);
  CHECK(caught_message([&] { graph_eval(*exchange_graph(), args, out); }) == "fake: the trees differ");
  // Every exchange after the failed one only copies its input: not one more call.
  for (size_t i = 0; i < g_calls.size(); i++)
    if (g_calls[i].signature == 42) CHECK(i + 1 == g_calls.size());

  ArgSpec spec{Shape::of({2, 3}), false};
  Value k = make_kernel("exchange", exchange_graph(), &spec, true);
  g_calls.clear();
  CHECK(caught_message([&] { g_type_hooks[kernel_type()].apply(k, 1, args); }) == "fake: the trees differ");
  CHECK(g_calls.back().signature == 42);
  // The error is cleared: the next call exchanges again.
  g_bad_signature = 0;
  g_calls.clear();
  Value again = g_type_hooks[kernel_type()].apply(k, 1, args);
  CHECK(g_calls.size() == 3);
  CHECK(number_as_double(car(cdr(cdr(again)))) == 2.0);
}

TEST_CASE("collective: an exchange of a constant is never folded", "[graph]") {
  FakeExchange fake;
  Graph g;
  int32_t c = g.allreduce(g.constant(1.0), int(ReduceKind::Sum), 9);
  g.outputs.push_back(GraphOutput{c, true});
  std::unique_ptr<Graph> o = optimise(g);
  CHECK(g_calls.empty());  // optimising exchanged nothing
  REQUIRE(o->size() == 2);
  CHECK((*o)[1].op == Op::Allreduce);
  Value *out = gc_values(1);
  graph_eval(*o, nullptr, out);
  graph_eval(*o, nullptr, out);
  CHECK(g_calls.size() == 2);  // one exchange per run
  CHECK(number_as_double(out[0]) == 3.0);
}

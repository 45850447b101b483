// test_compiler_layer.cpp — the compiler on the runtime alone: kiln_compiler_tests
// links kiln_compiler and kiln_runtime and nothing above them, so it stops linking
// when the compiler references a builtin, the prelude or the front doors. It
// records a graph by hand, differentiates and evaluates it.
#include <catch2/catch.hpp>

#include "compiler/autodiff.h"
#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "compiler/trace.h"
#include "runtime/big_stack.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/tensor.h"
#include "tests/support/catch_runner.h"

using namespace kiln;

namespace {

Value tensor_of(std::initializer_list<double> xs) {
  Value t = make_tensor(Shape::of({int64_t(xs.size())}));
  double *d = as<Tensor>(t)->data;
  for (double x : xs) *d++ = x;
  return t;
}

}  // namespace

TEST_CASE("a graph recorded, differentiated and evaluated without the stdlib", "[compiler]") {
  // loss = sum(x * x + 3x), dloss/dx = 2x + 3
  Graph g;
  ArgSpec spec{Shape::of({3}), false};
  int32_t x = g.param(0, spec);
  g.num_params = 1;
  int32_t three = g.constant(3.0);
  int32_t loss = g.reduce_all(
      Op::Sum, g.binary("t", Op::Add, g.binary("t", Op::Mul, x, x), g.binary("t", Op::Mul, three, x)));
  std::vector<int32_t> grads = append_gradients(g, loss);
  REQUIRE(grads.size() == 1);
  g.outputs = {GraphOutput{loss, true}, GraphOutput{grads[0], false}};
  Value args[1] = {tensor_of({1.0, -2.0, 0.5})};
  Value results[2];
  graph_eval(g, args, results);
  CHECK(number_as_double(results[0]) == 1.0 + 3.0 + 4.0 - 6.0 + 0.25 + 1.5);
  const double *d = as<Tensor>(results[1])->data;
  CHECK(d[0] == 5.0);
  CHECK(d[1] == -1.0);
  CHECK(d[2] == 4.0);
}

TEST_CASE("a shape error names the op and both shapes", "[compiler]") {
  Graph g;
  int32_t a = g.param(0, ArgSpec{Shape::of({2, 3}), false});
  int32_t b = g.param(1, ArgSpec{Shape::of({4, 3}), false});
  std::string message;
  try {
    g.binary("tensor-add", Op::Add, a, b);
  } catch (const LispError &) {
    message = error_message_of(g_raised);
  }
  CHECK(message == "tensor-add: shapes 2x3 and 4x3 do not broadcast");
}

int main(int argc, char **argv) {
  gc_init();
  init_stack_limit_for_main_thread();
  init_runtime();
  install_graph_hooks();
  return run_catch_session(argc, argv);
}

// test_kernel_tiering.cpp — kernels compiled on the background thread (SPEC §17,
// docs/jit.md "Tiered execution"): calls before, during and after the switch
// give the interpreter's bits, many queued compiles all take over; and donation's
// internals (docs/jit.md "Donation"): a donated tensor's buffer is the next
// call's output buffer, a shared one never is.
#include <catch2/catch.hpp>
#include <vector>

#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "compiler/kernel_object.h"
#include "compiler/tree.h"
#include "runtime/error.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::same_bits;

namespace {

Value filled(const Shape &s, int64_t off) {
  Tensor *t = alloc_tensor(s);
  for (int64_t i = 0; i < t->size; i++) t->data[i] = double((7 * i + off) % 17 - 8) / 8.0;
  return from_ptr(t);
}

// tanh(x w) + x * 0.375, x: rows x 8, w: 8 x 8; one tensor output.
std::unique_ptr<Graph> step_graph(int64_t rows, ArgSpec *specs) {
  auto g = std::make_unique<Graph>();
  specs[0] = ArgSpec{Shape::of({rows, 8}), false};
  specs[1] = ArgSpec{Shape::of({8, 8}), false};
  int32_t x = g->param(0, specs[0]);
  int32_t w = g->param(1, specs[1]);
  int32_t h = g->unary(Op::Tanh, g->matmul("test", x, w));
  g->outputs.push_back(
      GraphOutput{g->binary("test", Op::Add, h, g->binary("test", Op::Mul, x, g->constant(0.375))), false});
  return g;
}

Value call(Value k, Value *args) { return g_type_hooks[kernel_type()].apply(k, 2, args); }

}  // namespace

TEST_CASE("tiering: background kernels equal the interpreter before and after the switch", "[jit]") {
  register_kernel_type();
  const int n = 6;  // compiles queued at once
  Value *args = static_cast<Value *>(gc_alloc(sizeof(Value) * 2 * n));
  Value *kernels = static_cast<Value *>(gc_alloc(sizeof(Value) * n));
  Value *want = static_cast<Value *>(gc_alloc(sizeof(Value) * n));
  for (int i = 0; i < n; i++) {
    ArgSpec specs[2];
    auto g = step_graph(i + 1, specs);
    args[2 * i] = filled(specs[0].shape, i);
    args[2 * i + 1] = filled(specs[1].shape, 100 + i);
    graph_eval(*g, args + 2 * i, want + i);
    kernels[i] = make_kernel_in_background("tiered", std::move(g), specs, flat_layout(2, false));
  }
  // Calls while the compiles run (each may or may not have switched yet).
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < n; i++) CHECK(same_bits(call(kernels[i], args + 2 * i), want[i]));
  for (int i = 0; i < n; i++) {
    wait_for_kernel(kernels[i]);
    CHECK(kernel_ready(kernels[i]));
    CHECK(same_bits(call(kernels[i], args + 2 * i), want[i]));
  }
}

TEST_CASE("donation: the next call's output takes a donated buffer, never a shared one", "[jit]") {
  register_kernel_type();
  ArgSpec specs[2];
  Value *keep = static_cast<Value *>(gc_alloc(sizeof(Value) * 6));
  Value *args = keep;
  Value &spares = keep[2], &k = keep[3], &want = keep[4], &donated = keep[5];
  spares = NIL;
  auto g = step_graph(8, specs);  // output 8x8, as w
  args[0] = filled(specs[0].shape, 1);
  args[1] = filled(specs[1].shape, 2);
  graph_eval(*g, args, &want);
  k = make_kernel("donating", std::move(g), specs, flat_layout(2, false));

  donated = filled(specs[1].shape, 3);
  double *buffer = tensor_of(donated)->data;
  donate_tensor(donated, &spares);
  CHECK(is_donated_tensor(donated));
  CHECK_FALSE(is_tensor(donated));
  Value out = apply_kernel_reusing(k, 2, args, &spares);
  CHECK(tensor_of(out)->data == buffer);  // written into the donated buffer
  CHECK(spares == NIL);
  CHECK(tensor_of(donated)->data == nullptr);
  CHECK(same_bits(out, want));

  // A reshaped tensor shares its source's data: donating either recycles nothing.
  Value source = filled(specs[1].shape, 4);
  Value view = tensor_view(tensor_of(source), Shape::of({64}));
  donate_tensor(source, &spares);
  CHECK(spares == NIL);
  CHECK(tensor_of(view)->data[0] == -0.5);
  Value fresh = apply_kernel_reusing(k, 2, args, &spares);
  CHECK(same_bits(fresh, want));

  try {
    Value bad[2] = {args[0], donated};
    call(k, bad);
    FAIL("no error");
  } catch (LispError &) {
    CHECK(error_message_of(g_raised) ==
          "kernel donating: argument 2: tensor was donated to a kernel and is no longer valid (#<donated "
          "tensor "
          "8x8>)");
  }
}

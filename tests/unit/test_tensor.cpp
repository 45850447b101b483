// test_tensor.cpp — the tensor value: layout, printing, equal?, the builtins
// called directly, and that a long training-style loop keeps the heap flat.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "runtime/error.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"

using namespace kiln;

namespace {

void setup() {
  gc_init();
  init_builtins();
}

Value call(const char *name, std::initializer_list<Value> args) {
  Value f = sym(intern(name))->global;
  REQUIRE(is_builtin(f));
  Value argv[8];
  int argc = 0;
  for (Value v : args) argv[argc++] = v;
  return as<Builtin>(f)->fn(argc, argv);
}

Value iota_tensor(const Shape &s) {
  Tensor *t = alloc_tensor(s);
  for (int64_t i = 0; i < t->size; i++) t->data[i] = double(i);
  return from_ptr(t);
}

std::string message_of_error(const std::function<void()> &f) {
  try {
    f();
  } catch (const LispError &) {
    return error_message_of(g_raised);
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("tensor data is 64-byte aligned inside its GC block", "[tensor]") {
  setup();
  for (int64_t n : {1, 3, 8, 100, 1000, 8000, 16384, 100000}) {
    Tensor *t = alloc_tensor(Shape::of({n}));
    INFO(n << " elements");
    CHECK(reinterpret_cast<uintptr_t>(t->data) % 64 == 0);
    CHECK(t->size == n);
    // Below 64 KiB the header and the data share one pointer-free block.
    bool inline_data = sizeof(Tensor) + size_t(n) * 8 + 64 < 64 * 1024;
    CHECK((t->base == static_cast<void *>(t)) == inline_data);
    const char *start =
        inline_data ? reinterpret_cast<const char *>(t + 1) : static_cast<const char *>(t->base);
    CHECK(reinterpret_cast<const char *>(t->data) >= start);
    CHECK(reinterpret_cast<const char *>(t->data) < start + 64);
    CHECK(GC_base(t->data) == t->base);
  }
}

TEST_CASE("a tensor group shares one block, each tensor aligned and apart", "[tensor]") {
  setup();
  Shape shapes[4] = {Shape::of({32, 32}), Shape::of({1, 3}), Shape{}, Shape::of({5, 7})};
  const Shape *ptrs[4] = {&shapes[0], &shapes[1], &shapes[2], &shapes[3]};
  Tensor *ts[4];
  alloc_tensor_group(4, ptrs, ts);
  for (int i = 0; i < 4; i++) {
    INFO("tensor " << i);
    CHECK(ts[i]->shape == shapes[i]);
    CHECK(ts[i]->size == shapes[i].size());
    CHECK(reinterpret_cast<uintptr_t>(ts[i]->data) % 64 == 0);
    CHECK(ts[i]->base == ts[0]->base);
    CHECK(GC_base(ts[i]->data) == ts[i]->base);
    // Inside the block, after the previous tensor's data.
    const char *end = reinterpret_cast<const char *>(ts[i]->data + ts[i]->size);
    CHECK(end <= static_cast<const char *>(ts[i]->base) + GC_size(ts[i]->base));
    if (i > 0) CHECK(ts[i]->data >= ts[i - 1]->data + ts[i - 1]->size);
    for (int64_t k = 0; k < ts[i]->size; k++) ts[i]->data[k] = double(i * 1000 + k);
  }
  // The last tensor alone keeps the block: collections do not reuse it.
  Value last = from_ptr(ts[3]);
  for (Tensor *&t : ts) t = nullptr;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 2000; i++) make_tensor_filled(Shape::of({32, 32}), -1.0);
    GC_gcollect();
  }
  for (int64_t k = 0; k < 35; k++) CHECK(tensor_of(last)->data[k] == double(3000 + k));
}

TEST_CASE("tensors print as docs/language.md says", "[tensor]") {
  setup();
  CHECK(write_string(iota_tensor(Shape::of({2, 3}))) == "#<tensor 2x3 [0.0 1.0 2.0 3.0 4.0 5.0]>");
  CHECK(write_string(make_scalar_tensor(5)) == "#<tensor scalar [5.0]>");
  CHECK(write_string(iota_tensor(Shape::of({8}))) == "#<tensor 8 [0.0 1.0 2.0 3.0 4.0 5.0 6.0 7.0]>");
  CHECK(write_string(iota_tensor(Shape::of({64, 256}))) ==
        "#<tensor 64x256 [0.0 1.0 2.0 3.0 4.0 5.0 ... 16383.0]>");
  CHECK(display_string(make_scalar_tensor(0.1)) == "#<tensor scalar [0.1]>");
}

TEST_CASE("equal? on tensors compares shape and bits", "[tensor]") {
  setup();
  Value a = iota_tensor(Shape::of({2, 3})), b = iota_tensor(Shape::of({2, 3}));
  CHECK(tensor_equal(a, b));
  CHECK_FALSE(tensor_equal(a, iota_tensor(Shape::of({3, 2}))));
  CHECK_FALSE(tensor_equal(a, iota_tensor(Shape::of({6}))));
  CHECK_FALSE(tensor_equal(make_scalar_tensor(0.0), make_scalar_tensor(-0.0)));
  CHECK(tensor_equal(make_scalar_tensor(std::nan("")), make_scalar_tensor(std::nan(""))));
  CHECK(g_type_hooks[T_TENSOR].equal == tensor_equal);
  CHECK(std::string(g_type_hooks[T_TENSOR].name) == "tensor");
}

TEST_CASE("the builtins compute through the kernels", "[tensor]") {
  setup();
  Value a = iota_tensor(Shape::of({2, 3}));
  Value b = iota_tensor(Shape::of({3, 2}));
  Value c = call("matmul", {a, b});
  CHECK(write_string(c) == "#<tensor 2x2 [10.0 13.0 28.0 40.0]>");
  CHECK(write_string(call("tensor-add", {a, make_fixnum(1)})) == "#<tensor 2x3 [1.0 2.0 3.0 4.0 5.0 6.0]>");
  CHECK(write_string(call("tensor-sum", {a, make_fixnum(0)})) == "#<tensor 3 [3.0 5.0 7.0]>");
  CHECK(write_string(call("tensor-sum", {a})) == "15.0");
  CHECK(write_string(call("transpose", {a})) == "#<tensor 3x2 [0.0 3.0 1.0 4.0 2.0 5.0]>");
  CHECK(write_string(call("tensor-shape", {call("reshape", {a, list2(make_fixnum(-1), make_fixnum(2))})})) ==
        "(3 2)");
  // Generic arithmetic: (* 2 t).
  Value two = make_fixnum(2);
  Value args[2] = {two, a};
  CHECK(write_string(g_type_hooks[T_TENSOR].arith("*", 2, args)) ==
        "#<tensor 2x3 [0.0 2.0 4.0 6.0 8.0 10.0]>");
}

TEST_CASE("shape errors name the op and both shapes", "[tensor]") {
  setup();
  Value a = iota_tensor(Shape::of({2, 3})), b = iota_tensor(Shape::of({4, 3}));
  CHECK(message_of_error([&] {
          call("tensor-add", {a, b});
        }) == "tensor-add: shapes 2x3 and 4x3 do not broadcast");
  CHECK(message_of_error([&] { call("matmul", {a, a}); }) == "matmul: inner dimensions differ (2x3 and 2x3)");
}

TEST_CASE("a training loop of large tensors keeps the heap flat", "[tensor][gc][own-process]") {
  setup();
  Shape s = Shape::of({256, 64});
  Value w = make_tensor_filled(s, 0.5);
  // Warm up, then measure: 100 000 steps each making new 256x64 tensors.
  for (int i = 0; i < 2000; i++) w = make_tensor_filled(s, double(i));
  GC_gcollect();
  size_t before = GC_get_heap_size();
  BuiltinFn sub = as<Builtin>(sym(intern("tensor-sub"))->global)->fn;
  for (int i = 0; i < 100000; i++) {
    Value args[2] = {w, make_double(1e-3)};
    w = sub(2, args);
  }
  size_t after = GC_get_heap_size();
  INFO("heap before " << before << " after " << after);
  // 100 000 allocations of 128 KiB (12.5 GiB in total) must not grow the heap
  // by more than a few hundred tensors' worth.
  CHECK(after <= before + 32 * 1024 * 1024);
  CHECK(tensor_of(w)->data[0] == tensor_of(w)->data[0]);  // w still alive and readable
}

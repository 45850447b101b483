// test_jit.cpp — native kernels (docs/jit.md): every op's lowering against the
// graph interpreter bit for bit over several shapes (odd ones included), the
// matmul tiles against k_matmul_reference, the calling convention (shape
// errors, numbers, results), and the identity check of the kernel cache.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "compiler/autodiff.h"
#include "compiler/codegen.h"
#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "compiler/jit_context.h"
#include "compiler/kernel_cache.h"
#include "compiler/kernel_object.h"
#include "compiler/kernel_plan.h"
#include "compiler/kernel_units.h"
#include "compiler/optimise.h"
#include "runtime/error.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::same_bits;

namespace {

// val(i, off) = ((7 i + off) mod 17 - 8) / 8: exact, with repeats (ties for max),
// zeros and negatives.
double val(int64_t i, int64_t off) { return double((7 * i + off) % 17 - 8) / 8.0; }

Value filled_tensor(const Shape &s, int64_t off) {
  Tensor *t = alloc_tensor(s);
  for (int64_t i = 0; i < t->size; i++) t->data[i] = val(i, off);
  return from_ptr(t);
}

// Values must live in GC-scanned memory, never in a std::vector (malloc memory
// the collector does not see).
Value *gc_values(size_t n) { return static_cast<Value *>(gc_alloc(sizeof(Value) * (n ? n : 1))); }

Value call_kernel(Value k, std::initializer_list<Value> args) {
  Value *argv = gc_values(args.size());
  int argc = 0;
  for (Value v : args) argv[argc++] = v;
  return g_type_hooks[kernel_type()].apply(k, argc, argv);
}

// Compiles g (argument specs `specs`) and checks that one call on args[0..argc)
// returns what graph_eval returns, output by output, bit for bit.
void check_kernel_matches_interpreter(const char *name, std::unique_ptr<Graph> g, const ArgSpec *specs,
                                      Value *args, int argc) {
  size_t outs = g->outputs.size();
  Value *want = gc_values(outs);
  graph_eval(*g, args, want);
  Value k = make_kernel(name, std::move(g), specs, true);
  REQUIRE(last_kernel_build().compiled);
  size_t i = 0;
  for (Value l = g_type_hooks[kernel_type()].apply(k, argc, args); is_pair(l); l = cdr(l), i++) {
    INFO("output " << i);
    CHECK(same_bits(car(l), want[i]));
  }
  CHECK(i == outs);
}

std::string caught_message(const std::function<void()> &f) {
  try {
    f();
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "(no error)";
}

// One graph holding every op on x (shape s) and y (shape t, broadcasting with
// s), plus a matmul when s is rank 2. Outputs are all tensors.
std::unique_ptr<Graph> every_op_graph(const Shape &s, const Shape &t) {
  auto g = std::make_unique<Graph>();
  int32_t x = g->param(0, ArgSpec{s, false});
  int32_t y = g->param(1, ArgSpec{t, false});
  std::vector<int32_t> outs;
  for (int op = int(Op::Add); op <= int(Op::Equal); op++) {
    outs.push_back(g->binary("test", Op(op), x, y));
    outs.push_back(g->binary("test", Op(op), g->constant(0.375), x));
  }
  for (int op = int(Op::Neg); op <= int(Op::ReluGrad); op++) outs.push_back(g->unary(Op(op), x));
  outs.push_back(g->select("test", g->binary("test", Op::Less, x, y), x, y));
  outs.push_back(g->reduce_all(Op::Sum, x));
  outs.push_back(g->reduce_all(Op::Mean, x));
  outs.push_back(g->reduce_all(Op::Max, x));
  outs.push_back(g->max_mask(x, -1));
  for (int axis = 0; axis < s.rank; axis++) {
    outs.push_back(g->reduce_axis(Op::SumAxis, x, axis, false));
    outs.push_back(g->reduce_axis(Op::MeanAxis, x, axis, true));
    outs.push_back(g->reduce_axis(Op::MaxAxis, x, axis, false));
    outs.push_back(g->max_mask(x, axis));
  }
  Shape b;  // broadcast shape of x and y
  REQUIRE(broadcast_shapes(s, t, b));
  int32_t bx = g->broadcast_to(x, b);
  outs.push_back(g->broadcast_to(y, b));
  outs.push_back(g->sum_to(g->binary("test", Op::Mul, bx, g->constant(3.0)), t));
  if (s.rank >= 2) {
    int perm[kMaxRank];
    for (int i = 0; i < s.rank; i++) perm[i] = (i + 1) % s.rank;
    outs.push_back(g->transpose(x, perm));
  }
  outs.push_back(g->reshape(x, Shape::of({s.size()})));
  for (int axis = 0; axis < s.rank; axis++) {
    int64_t len = s.dim[axis];
    int32_t part = g->slice(x, axis, len / 2, len - len / 2);  // the upper half, or all of a 1
    outs.push_back(part);
    Shape wide = s;
    wide.dim[axis] = len + 3;
    outs.push_back(g->pad(x, axis, 2, wide));
    outs.push_back(g->concat(x, g->concat(part, x, axis), axis));
  }
  for (int axis = 0; axis < s.rank; axis++) {
    int64_t len = s.dim[axis];
    outs.push_back(g->argmax(x, axis));
    // Constant indices with repeats (the scatter-add sums them), and indices
    // computed by the kernel itself (an argmax along the same axis).
    Tensor *idx = alloc_tensor(Shape::of({2, 2}));
    double picks[4] = {double(len - 1), 0.0, double(len - 1), double(len / 2)};
    std::copy(picks, picks + 4, idx->data);
    int32_t ci = g->constant_tensor(from_ptr(idx));
    int32_t taken = g->take(x, ci, axis);
    outs.push_back(taken);
    outs.push_back(g->scatter_add(g->binary("test", Op::Mul, taken, g->constant(3.0)), ci, axis, s));
    int32_t computed = g->argmax(x, axis);
    int32_t gathered = g->take(x, computed, axis);
    outs.push_back(gathered);
    outs.push_back(g->scatter_add(gathered, computed, axis, s));
  }
  if (s.rank == 2) {
    int perm[2] = {1, 0};
    int32_t xt = g->transpose(x, perm);
    outs.push_back(g->matmul("test", x, xt));  // m x m
    outs.push_back(g->matmul("test", xt, x));  // k x k
  }
  for (int32_t o : outs) g->outputs.push_back(GraphOutput{o, false});
  return g;
}

struct CacheOff {
  CacheOff() { setenv("KILN_CACHE_DIR", "off", 1); }
  ~CacheOff() { unsetenv("KILN_CACHE_DIR"); }
};

}  // namespace

TEST_CASE("jit: matmul tiles equal k_matmul_reference bit for bit", "[jit]") {
  struct Dims {
    int64_t m, k, n;
  };
  std::vector<Dims> dims = {{1, 1, 1},  {3, 5, 7},     {8, 16, 8}, {13, 17, 11},
                            {4, 3, 33}, {64, 256, 64}, {7, 1, 9}};
  gcc_jit_context *ctx = jit_new_context();
  for (size_t i = 0; i < dims.size(); i++)
    emit_matmul_function(ctx, ("mm" + std::to_string(i)).c_str(), dims[i].m, dims[i].k, dims[i].n);
  gcc_jit_result *res = gcc_jit_context_compile(ctx);
  REQUIRE(res != nullptr);
  for (size_t i = 0; i < dims.size(); i++) {
    auto [m, k, n] = dims[i];
    std::vector<double> a(size_t(m * k)), b(size_t(k * n)), want(size_t(m * n)), got(size_t(m * n), -1.0);
    // Values that are not exact in binary, so rounding order shows.
    for (size_t t = 0; t < a.size(); t++) a[t] = 0.1 * double((t * 7) % 13) - 0.55;
    for (size_t t = 0; t < b.size(); t++) b[t] = 0.3 * double((t * 5) % 11) - 1.7;
    k_matmul_reference(a.data(), b.data(), want.data(), m, k, n);
    auto fn = reinterpret_cast<void (*)(double *, double *, double *)>(
        gcc_jit_result_get_code(res, ("mm" + std::to_string(i)).c_str()));
    REQUIRE(fn != nullptr);
    fn(a.data(), b.data(), got.data());
    INFO(m << "x" << k << "x" << n);
    CHECK(same_bits(want, got));
  }
  gcc_jit_result_release(res);
  gcc_jit_context_release(ctx);
}

TEST_CASE("jit: every op compiled equals the graph interpreter bit for bit", "[jit]") {
  CacheOff off;
  struct Case {
    Shape x, y;
  };
  std::vector<Case> cases = {
      {Shape::of({8, 16}), Shape::of({8, 16})},
      // Whole 8x8 blocks. This graph's transposes host fused sums and so keep the
      // band loop; the block path has its own test ("2-D transposes ...").
      {Shape::of({24, 16}), Shape::of({1, 16})},
      {Shape::of({5, 7}), Shape::of({7})},
      {Shape::of({1, 9}), Shape::of({3, 1, 1})},
      {Shape::of({3, 4, 5}), Shape::of({4, 1})},
      {Shape::of({13}), Shape{}},
      {Shape::of({6, 33}), Shape::of({6, 1})},
  };
  for (const Case &c : cases) {
    auto g = every_op_graph(c.x, c.y);
    Value *args = gc_values(2);
    args[0] = filled_tensor(c.x, 0);
    args[1] = filled_tensor(c.y, 5);
    size_t nout = g->outputs.size();
    Value *want = gc_values(nout);
    graph_eval(*g, args, want);
    ArgSpec specs[2] = {ArgSpec{c.x, false}, ArgSpec{c.y, false}};
    Value k = make_kernel("every-op", std::move(g), specs, true);
    REQUIRE(last_kernel_build().compiled);
    Value got = call_kernel(k, {args[0], args[1]});
    size_t i = 0;
    for (Value l = got; is_pair(l); l = cdr(l), i++) {
      INFO("shape " << shape_string(c.x) << " / " << shape_string(c.y) << " output " << i);
      CHECK(same_bits(car(l), want[i]));
    }
    CHECK(i == nout);
  }
}

TEST_CASE("jit: NaNs and signed zeros follow the interpreter", "[jit]") {
  CacheOff off;
  Shape s = Shape::of({4, 6});
  auto g = every_op_graph(s, s);
  Tensor *x = tensor_of(filled_tensor(s, 0));
  x->data[3] = std::nan("");
  x->data[7] = -0.0;
  x->data[8] = 0.0;
  x->data[20] = std::nan("");
  Value *args = gc_values(2);
  args[0] = from_ptr(x);
  args[1] = filled_tensor(s, 2);
  size_t nout = g->outputs.size();
  Value *want = gc_values(nout);
  graph_eval(*g, args, want);
  ArgSpec specs[2] = {ArgSpec{s, false}, ArgSpec{s, false}};
  Value k = make_kernel("nan-op", std::move(g), specs, true);
  Value got = call_kernel(k, {args[0], args[1]});
  size_t i = 0;
  for (Value l = got; is_pair(l); l = cdr(l), i++) {
    INFO("output " << i);
    CHECK(same_bits(car(l), want[i]));
  }
}

TEST_CASE("jit: tanh equals the interpreter over the whole double range", "[jit]") {
  CacheOff off;
  // 67 elements: whole vectors plus a scalar tail; alone, and fused with an add.
  Shape s = Shape::of({67});
  Tensor *x = tensor_of(filled_tensor(s, 0));
  const double specials[] = {0.0,          -0.0,          5e-324,     -1e-310, 0x1p-30,  19.99,
                             20.0,         -20.01,        1e300,      -1e300,  HUGE_VAL, -HUGE_VAL,
                             std::nan(""), -std::nan(""), 0.34657359, -3.5};
  for (size_t i = 0; i < std::size(specials); i++) x->data[i * 4] = specials[i];
  for (int64_t i = 0; i < 67; i++)
    if (i % 4 != 0 || i / 4 >= int64_t(std::size(specials)))
      x->data[i] = std::ldexp(val(i, 3), int(i % 23) - 11);
  auto g = std::make_unique<Graph>();
  int32_t p = g->param(0, ArgSpec{s, false});
  int32_t alone = g->unary(Op::Tanh, p);
  int32_t fused = g->unary(Op::Tanh, g->binary("test", Op::Add, p, g->constant(0.25)));
  g->outputs.push_back(GraphOutput{alone, false});
  g->outputs.push_back(GraphOutput{fused, false});
  ArgSpec specs[1] = {ArgSpec{s, false}};
  Value *args = gc_values(1);
  args[0] = from_ptr(x);
  check_kernel_matches_interpreter("tanh-range", std::move(g), specs, args, 1);
}

TEST_CASE("jit: gelu and random draws equal the interpreter, bad keys fail alike", "[jit]") {
  CacheOff off;
  // 67 elements: whole vectors plus a scalar tail for gelu; an odd count of normals.
  Shape s = Shape::of({67});
  auto build = [&] {
    auto g = std::make_unique<Graph>();
    int32_t p = g->param(0, ArgSpec{s, false});
    int32_t key = g->param(1, ArgSpec{Shape{}, true});
    g->num_params = 2;
    g->outputs.push_back(GraphOutput{g->unary(Op::Gelu, p), false});
    g->outputs.push_back(GraphOutput{g->random(RandomKind::Uniform, key, Shape::of({5, 3})), false});
    g->outputs.push_back(GraphOutput{g->random(RandomKind::Normal, key, s), false});
    g->outputs.push_back(GraphOutput{g->random(RandomKind::Split, key, Shape::of({4})), false});
    g->outputs.push_back(GraphOutput{g->random(RandomKind::Dropout, key, Shape::of({2, 2})), false});
    return g;
  };
  ArgSpec specs[2] = {ArgSpec{s, false}, ArgSpec{Shape{}, true}};
  Value *args = gc_values(2);
  args[0] = filled_tensor(s, 1);
  for (double k : {0.0, 7.0, -3.0, 4503599627370497.0}) {
    INFO("key " << k);
    args[1] = make_double(k);
    check_kernel_matches_interpreter("random", build(), specs, args, 2);
  }
  // A key that is not an integer: the same error from the interpreter and the kernel.
  args[1] = make_double(2.5);
  auto g = build();
  Value *out = gc_values(g->outputs.size());
  std::string interpreted = caught_message([&] { graph_eval(*g, args, out); });
  CHECK(interpreted == "tensor-rand: argument 2 must be an integer key, got 2.5");
  Value k = make_kernel("random-bad", std::move(g), specs, true);
  CHECK(caught_message([&] { call_kernel(k, {args[0], args[1]}); }) == interpreted);
}

TEST_CASE("jit: calling convention, numbers, printing and shape errors", "[jit]") {
  CacheOff off;
  auto g = std::make_unique<Graph>();
  int32_t x = g->param(0, ArgSpec{Shape::of({2, 3}), false});
  int32_t s = g->param(1, ArgSpec{Shape{}, true});
  int32_t y = g->binary("test", Op::Mul, x, s);
  int32_t total = g->reduce_all(Op::Sum, y);
  g->outputs.push_back(GraphOutput{total, true});
  g->outputs.push_back(GraphOutput{y, false});
  g->outputs.push_back(GraphOutput{x, false});  // a parameter as an output: copied
  ArgSpec specs[2] = {ArgSpec{Shape::of({2, 3}), false}, ArgSpec{Shape{}, true}};
  Value k = make_kernel("scale", std::move(g), specs, true);
  REQUIRE(is_procedure(k));
  std::string printed;
  g_type_hooks[kernel_type()].print(printed, k, true);
  CHECK(printed == "#<kernel scale (2x3 scalar)>");

  Value t = filled_tensor(Shape::of({2, 3}), 1);
  Value r = call_kernel(k, {t, make_double(2.0)});
  REQUIRE(is_pair(r));
  double sum = 0.0;
  for (int i = 0; i < 6; i++) sum = sum + val(i, 1) * 2.0;
  CHECK(is_double(car(r)));
  CHECK(double_of(car(r)) == sum);
  Value third = car(cdr(cdr(r)));
  CHECK(same_bits(third, t));
  CHECK(tensor_of(third)->data != tensor_of(t)->data);  // a fresh result tensor

  CHECK(caught_message([&] {
          call_kernel(k, {filled_tensor(Shape::of({4, 3}), 0), make_fixnum(1)});
        }) == "kernel scale: compiled for 2x3 at argument 1, got 4x3; compile again for new shapes");
  CHECK(caught_message([&] {
          call_kernel(k, {t, filled_tensor(Shape::of({2}), 0)});
        }) == "kernel scale: compiled for a number at argument 2, got 2; compile again for new shapes");
  // A number and a rank-0 tensor are different kinds, checked like shapes (docs/graph.md).
  CHECK(
      caught_message([&] {
        call_kernel(k, {t, filled_tensor(Shape{}, 0)});
      }) ==
      "kernel scale: compiled for a number at argument 2, got a scalar tensor; compile again for new shapes");
  CHECK(caught_message([&] { call_kernel(k, {t}); }) == "kernel scale: expected 2 arguments, got 1");
  CHECK(caught_message([&] {
          call_kernel(k, {t, make_string("a")});
        }) == "kernel scale: argument 2 must be a number or a tensor, got \"a\"");
}

TEST_CASE("jit: cache key covers the graph and flags, entries are checked", "[jit]") {
  std::string a = kernel_key_text("params 1\n0 param 2x3 ten p0\noutputs 0t\n");
  std::string b = kernel_key_text("params 1\n0 param 3x2 ten p0\noutputs 0t\n");
  CHECK(a != b);
  CHECK(kernel_key_hash(a) != kernel_key_hash(b));
  CHECK(kernel_key_hash(a).size() == 32);
  CHECK(a.find(jit_march()) != std::string::npos);
  CHECK(a.find(jit_version_string()) != std::string::npos);
}

TEST_CASE("jit: parallel matmul chunks give the same bits for any thread count", "[jit]") {
  CacheOff off;
  struct Dims {
    int64_t m, k, n;
  };
  // At or above the parallel crossover; 13 rows leave a partial last chunk.
  int saved_threads = compute_threads();
  for (Dims d : {Dims{64, 512, 64}, Dims{13, 1000, 170}, Dims{40, 300, 190}}) {
    REQUIRE(d.m * d.k * d.n >= kParallelMatmulWork);
    auto g = std::make_unique<Graph>();
    Shape as = Shape::of({d.m, d.k}), bs = Shape::of({d.k, d.n});
    int32_t a = g->param(0, ArgSpec{as, false});
    int32_t b = g->param(1, ArgSpec{bs, false});
    g->outputs.push_back(GraphOutput{g->matmul("test", a, b), false});
    Value *args = gc_values(2);
    args[0] = filled_tensor(as, 1);
    args[1] = filled_tensor(bs, 4);
    Tensor *ta = tensor_of(args[0]);
    for (int64_t i = 0; i < ta->size; i++) ta->data[i] = ta->data[i] * 0.1 + 0.01;  // inexact values
    Value *want = gc_values(1);
    graph_eval(*g, args, want);
    ArgSpec specs[2] = {ArgSpec{as, false}, ArgSpec{bs, false}};
    Value k = make_kernel("mm", std::move(g), specs, false);
    for (int threads : {1, 2, 3}) {
      set_compute_threads(threads);
      INFO(d.m << "x" << d.k << "x" << d.n << " with " << threads << " threads");
      CHECK(same_bits(call_kernel(k, {args[0], args[1]}), want[0]));
    }
  }
  set_compute_threads(saved_threads);
}

TEST_CASE("jit: 2-D transposes by vector blocks and by bands, same bits", "[jit]") {
  CacheOff off;
  // 16x24 and 32x32 are whole blocks at vector widths 2, 4 and 8; 12x20 is
  // whole blocks at 2 and 4, bands at 8; 5x7 is bands everywhere.
  for (Shape s : {Shape::of({16, 24}), Shape::of({32, 32}), Shape::of({12, 20}), Shape::of({5, 7})}) {
    auto g = std::make_unique<Graph>();
    int32_t x = g->param(0, ArgSpec{s, false});
    int32_t w = g->param(1, ArgSpec{s, false});
    int perm[2] = {1, 0};
    g->outputs.push_back(GraphOutput{g->transpose(x, perm), false});
    g->outputs.push_back(GraphOutput{g->matmul("test", x, g->transpose(w, perm)), false});  // x w^T
    ArgSpec specs[2] = {ArgSpec{s, false}, ArgSpec{s, false}};
    Value *args = gc_values(2);
    args[0] = filled_tensor(s, 3);
    args[1] = filled_tensor(s, 8);
    INFO(shape_string(s));
    check_kernel_matches_interpreter("transposes", std::move(g), specs, args, 2);
  }
}

TEST_CASE("jit: a transposed left matmul operand is read in place, same bits", "[jit]") {
  CacheOff off;
  struct Dims {
    int64_t m, k, n;
  };
  for (Dims d : {Dims{5, 7, 9}, Dims{8, 16, 8}, Dims{64, 256, 64}, Dims{13, 300, 70}}) {
    auto g = std::make_unique<Graph>();
    Shape cs = Shape::of({d.k, d.m}), bs = Shape::of({d.k, d.n});
    int32_t c = g->param(0, ArgSpec{cs, false});
    int32_t b = g->param(1, ArgSpec{bs, false});
    int perm[2] = {1, 0};
    int32_t ct = g->transpose(c, perm);  // m x k, used only as a left operand
    g->outputs.push_back(GraphOutput{g->matmul("test", ct, b), false});
    g->outputs.push_back(
        GraphOutput{g->reduce_all(Op::Sum, g->matmul("test", ct, g->unary(Op::Neg, b))), true});
    Value *args = gc_values(2);
    args[0] = filled_tensor(cs, 2);
    args[1] = filled_tensor(bs, 6);
    Tensor *tc = tensor_of(args[0]);
    for (int64_t i = 0; i < tc->size; i++) tc->data[i] = tc->data[i] * 0.3 - 0.01;
    Value *want = gc_values(2);
    graph_eval(*g, args, want);
    ArgSpec specs[2] = {ArgSpec{cs, false}, ArgSpec{bs, false}};
    Value k = make_kernel("mmt", std::move(g), specs, true);
    Value got = call_kernel(k, {args[0], args[1]});
    INFO(d.m << "x" << d.k << "x" << d.n);
    CHECK(same_bits(car(got), want[0]));
    CHECK(same_bits(car(cdr(got)), want[1]));
  }
}

TEST_CASE("jit: a transposed right matmul operand is read in place, same bits at any thread count", "[jit]") {
  CacheOff off;
  struct Dims {
    int64_t m, k, n;
  };
  // n = 170: whole stripes (packed), one ragged vector stripe and scalar columns
  // at every vector width; k = 1024 is the largest packed inner length, 1025 is
  // copied as before; 7x500x1001 is short and wide (split by columns), 130x70x90
  // by rows; 3x9x5 is below every tile.
  int saved_threads = compute_threads();
  for (Dims d : {Dims{13, 1000, 170}, Dims{7, 500, 1001}, Dims{130, 70, 90}, Dims{5, 1024, 40},
                 Dims{5, 1025, 40}, Dims{3, 9, 5}}) {
    auto g = std::make_unique<Graph>();
    Shape as = Shape::of({d.m, d.k}), ws = Shape::of({d.n, d.k});
    int32_t a = g->param(0, ArgSpec{as, false});
    int32_t w = g->param(1, ArgSpec{ws, false});
    int perm[2] = {1, 0};
    int32_t wt = g->transpose(w, perm);  // k x n, used only as a right operand
    g->outputs.push_back(GraphOutput{g->matmul("test", a, wt), false});
    g->outputs.push_back(GraphOutput{g->matmul("test", g->unary(Op::Neg, a), wt), false});
    CHECK(operand_transposes(*g)[size_t(wt)] == (d.k <= kMaxPackedInner));
    Value *args = gc_values(2);
    args[0] = filled_tensor(as, 2);
    args[1] = filled_tensor(ws, 5);
    Tensor *ta = tensor_of(args[0]);
    for (int64_t i = 0; i < ta->size; i++) ta->data[i] = ta->data[i] * 0.3 - 0.01;  // inexact values
    Value *want = gc_values(2);
    graph_eval(*g, args, want);
    ArgSpec specs[2] = {ArgSpec{as, false}, ArgSpec{ws, false}};
    Value k = make_kernel("mmrt", std::move(g), specs, true);
    for (int threads : {1, 2, 3}) {
      set_compute_threads(threads);
      INFO(d.m << "x" << d.k << "x" << d.n << " with " << threads << " threads");
      Value got = call_kernel(k, {args[0], args[1]});
      CHECK(same_bits(car(got), want[0]));
      CHECK(same_bits(car(cdr(got)), want[1]));
    }
  }
  set_compute_threads(saved_threads);
}

TEST_CASE("jit: large element-wise runs split over threads, same bits", "[jit]") {
  CacheOff off;
  // 513x517 = 265221 elements: above the split (2^18), two whole chunks of
  // 2^17 and a ragged third.
  Shape s = Shape::of({513, 517});
  REQUIRE(s.size() >= (int64_t(1) << 18));  // Emitter::kParallelElementwise
  auto g = std::make_unique<Graph>();
  int32_t x = g->param(0, ArgSpec{s, false});
  int32_t y = g->param(1, ArgSpec{s, false});
  int32_t upd = g->binary("test", Op::Sub, x, g->binary("test", Op::Mul, g->constant(0.01), y));  // SGD
  g->outputs.push_back(GraphOutput{upd, false});
  g->outputs.push_back(GraphOutput{g->unary(Op::Tanh, g->binary("test", Op::Add, upd, x)), false});
  Value *args = gc_values(2);
  args[0] = filled_tensor(s, 3);
  args[1] = filled_tensor(s, 7);
  Value *want = gc_values(2);
  graph_eval(*g, args, want);
  ArgSpec specs[2] = {ArgSpec{s, false}, ArgSpec{s, false}};
  Value k = make_kernel("sgd", std::move(g), specs, true);
  int saved_threads = compute_threads();
  for (int threads : {1, 2, 3}) {
    set_compute_threads(threads);
    INFO(threads << " threads");
    Value got = call_kernel(k, {args[0], args[1]});
    CHECK(same_bits(car(got), want[0]));
    CHECK(same_bits(car(cdr(got)), want[1]));
  }
  set_compute_threads(saved_threads);
}

TEST_CASE("jit: independent serial sums share one loop, same bits", "[jit]") {
  CacheOff off;
  Shape s = Shape::of({5, 7});
  auto g = std::make_unique<Graph>();
  int32_t x = g->param(0, ArgSpec{s, false});
  int32_t y = g->param(1, ArgSpec{s, false});
  int32_t loss = g->reduce_all(Op::Sum, g->binary("test", Op::Mul, x, x));           // a serial sum
  int32_t scaled = g->binary("test", Op::Mul, loss, g->constant(3.0));               // depends on it
  int32_t unrelated = g->binary("test", Op::Sub, y, x);                              // does not
  int32_t bias_grad = g->sum_to(g->binary("test", Op::Mul, unrelated, y), Shape{});  // pairs with loss
  int32_t mean = g->reduce_all(Op::Mean, y);  // another serial sum: too late to pair, stays alone
  for (int32_t o : {loss, scaled, bias_grad, mean, unrelated}) g->outputs.push_back(GraphOutput{o, false});

  std::vector<EmitStep> steps = kernel_emission_order(*g);
  auto pos = [&](int32_t node) {
    return std::distance(steps.begin(), std::find_if(steps.begin(), steps.end(), [&](const EmitStep &e) {
                           return e.node == node || e.paired == node || e.host == node;
                         }));
  };
  auto pair_at = pos(loss);
  REQUIRE(pair_at < std::ptrdiff_t(steps.size()));
  CHECK(steps[size_t(pair_at)].node == loss);
  CHECK(steps[size_t(pair_at)].paired == bias_grad);
  CHECK(steps[size_t(pair_at)].host == -1);  // no transpose in this graph
  CHECK(pos(unrelated) < pair_at);
  CHECK(pos(scaled) > pair_at);
  CHECK(pos(mean) > pair_at);
  CHECK(steps.size() == size_t(g->size()) - 1);  // every node once; the pair is one step

  Value *args = gc_values(2);
  args[0] = filled_tensor(s, 0);
  args[1] = filled_tensor(s, 3);
  tensor_of(args[0])->data[4] = -0.0;
  ArgSpec specs[2] = {ArgSpec{s, false}, ArgSpec{s, false}};
  REQUIRE(g->outputs.size() == 5);
  check_kernel_matches_interpreter("pairs", std::move(g), specs, args, 2);
}

TEST_CASE("jit: serial sums ride in a transpose's loop, same bits", "[jit]") {
  CacheOff off;
  // rows x cols transposes (odd and even; tails of bands and of sums) with a
  // serial sum of `len` elements that does not depend on them.
  struct Case {
    int64_t rows, cols, len;
    bool pair;
  };
  for (Case c :
       {Case{64, 256, 4096, true}, Case{13, 7, 100, false}, Case{8, 3, 29, true}, Case{17, 5, 10, true}}) {
    Shape ts = Shape::of({c.cols, c.rows}), ss = Shape::of({c.len});
    auto g = std::make_unique<Graph>();
    int32_t w = g->param(0, ArgSpec{ts, false});
    int32_t v = g->param(1, ArgSpec{ss, false});
    int32_t sq = g->binary("test", Op::Mul, v, v);
    int32_t total = g->reduce_all(Op::Sum, sq);
    int32_t other = c.pair ? g->reduce_all(Op::Mean, g->binary("test", Op::Sub, v, sq)) : -1;
    static const int swap[2] = {1, 0};
    int32_t wt = g->transpose(w, swap);                     // materialised: an output, not a left operand
    int32_t after = g->binary("test", Op::Mul, wt, total);  // uses both
    for (int32_t o : {total, wt, after}) g->outputs.push_back(GraphOutput{o, false});
    if (other >= 0) g->outputs.push_back(GraphOutput{other, false});

    std::vector<EmitStep> steps = kernel_emission_order(*g);
    auto hosted =
        std::find_if(steps.begin(), steps.end(), [&](const EmitStep &e) { return e.node == total; });
    REQUIRE(hosted != steps.end());
    bool can_ride = c.rows / 8 * c.cols > 0 && c.len / (c.rows / 8 * c.cols) >= 1;
    INFO(c.rows << "x" << c.cols << " sum of " << c.len);
    CHECK(hosted->host == (can_ride ? wt : -1));
    CHECK(hosted->paired == other);

    Value *args = gc_values(2);
    args[0] = filled_tensor(ts, 1);
    args[1] = filled_tensor(ss, 2);
    ArgSpec specs[2] = {ArgSpec{ts, false}, ArgSpec{ss, false}};
    check_kernel_matches_interpreter("ride", std::move(g), specs, args, 2);
  }
}

TEST_CASE("jit: consecutive element-wise ops run as one loop, same bits", "[jit]") {
  CacheOff off;
  for (Shape s : {Shape::of({5, 7}), Shape::of({64, 64}), Shape::of({3}), Shape::of({2, 3, 5})}) {
    auto g = std::make_unique<Graph>();
    int32_t x = g->param(0, ArgSpec{s, false});
    int32_t y = g->param(1, ArgSpec{s, false});
    int32_t k = g->param(2, ArgSpec{Shape{}, true});  // a number operand
    int32_t a = g->binary("test", Op::Add, x, k);     // run 1 starts
    int32_t r = g->unary(Op::Relu, a);
    int32_t d = g->binary("test", Op::Sub, r, y);   // read after the run too
    int32_t k2 = g->binary("test", Op::Mul, k, k);  // one element: moves up, does not split the run
    int32_t sq = g->binary("test", Op::Mul, d, d);  // read by the sum
    int32_t total = g->reduce_all(Op::Sum, sq);     // breaks the run
    int32_t b = g->broadcast_to(total, s);          // run 2 starts
    int32_t m = g->binary("test", Op::Mul, g->binary("test", Op::Mul, b, d), k2);
    int32_t e = g->unary(Op::Exp, g->unary(Op::Neg, m));
    int32_t mask = g->unary(Op::ReluGrad, a);
    int32_t sel = g->select("test", mask, e, g->constant(0.0));  // an output inside the run
    int32_t cmp = g->binary("test", Op::GreaterEqual, sel, x);
    int32_t mx = g->binary("test", Op::Maximum, cmp, g->unary(Op::Sqrt, y));
    for (int32_t o : {total, sel, mx, d}) g->outputs.push_back(GraphOutput{o, false});

    std::vector<EmitStep> steps = kernel_emission_order(*g);
    auto at = [&](int32_t node) {
      return std::find_if(steps.begin(), steps.end(), [&](const EmitStep &st) { return st.node == node; });
    };
    INFO("shape of " << s.size() << " elements");
    REQUIRE(at(a) != steps.end());
    CHECK(at(a)->fuse_next);
    CHECK(at(d)->fuse_next);
    CHECK(at(k2) < at(a));
    CHECK_FALSE(at(sq)->fuse_next);  // the sum follows
    CHECK(at(b)->fuse_next);
    CHECK_FALSE(at(mx)->fuse_next);  // the last node

    Value *args = gc_values(3);
    args[0] = filled_tensor(s, 0);
    args[1] = filled_tensor(s, 4);
    args[2] = make_double(0.25);
    tensor_of(args[0])->data[1] = -0.0;
    if (s.size() > 2) tensor_of(args[1])->data[2] = std::nan("");
    ArgSpec specs[3] = {ArgSpec{s, false}, ArgSpec{s, false}, ArgSpec{Shape{}, true}};
    REQUIRE(g->outputs.size() == 4);
    check_kernel_matches_interpreter("fused", std::move(g), specs, args, 3);
  }
}

TEST_CASE("jit: units repeated across layers share one function, same bits", "[jit]") {
  CacheOff off;
  // Six identical tanh layers of width 8 and their gradients: most units recur.
  const int layers = 6;
  const int64_t batch = 5, width = 8;
  Graph raw;
  int32_t h = raw.param(0, ArgSpec{Shape::of({batch, width}), false});
  std::vector<int32_t> wrt;
  for (int l = 0; l < layers; l++) {
    int32_t w = raw.param(1 + 2 * l, ArgSpec{Shape::of({width, width}), false});
    int32_t b = raw.param(2 + 2 * l, ArgSpec{Shape::of({1, width}), false});
    wrt.push_back(w);
    wrt.push_back(b);
    h = raw.unary(Op::Tanh, raw.binary("test", Op::Add, raw.matmul("test", h, w), b));
  }
  int32_t loss = raw.reduce_all(Op::Mean, raw.binary("test", Op::Mul, h, h));
  std::vector<int32_t> grads = append_gradients(raw, loss, wrt);
  raw.outputs.push_back(GraphOutput{loss, true});
  for (int32_t d : grads) raw.outputs.push_back(GraphOutput{d, false});
  std::unique_ptr<Graph> g = optimise(raw);

  std::vector<KernelUnit> units = kernel_units(*g, kernel_emission_order(*g), operand_transposes(*g));
  std::vector<bool> shared = shared_units(units);
  CHECK(std::count(shared.begin(), shared.end(), true) >= 3 * (layers - 1));

  const int argc = 1 + 2 * layers;
  Value *args = gc_values(size_t(argc));
  ArgSpec specs[1 + 2 * layers];
  for (int a = 0; a < argc; a++) {
    specs[a] = ArgSpec{(*g)[a].shape, false};
    args[a] = filled_tensor((*g)[a].shape, 3 * a + 1);
    Tensor *t = tensor_of(args[a]);
    for (int64_t i = 0; i < t->size; i++) t->data[i] *= 0.4;  // tanh away from saturation
  }
  check_kernel_matches_interpreter("deep", std::move(g), specs, args, argc);
}

// test_tensor_ops.cpp — runtime/tensor_ops.h against naive references, across CPU
// paths and thread counts, and against PyTorch float64 values.
//
// The naive references below are the docs/tensors.md summation orders written as the
// plainest loops; the kernels must match them to the last bit. The PyTorch
// numbers were computed once (torch 1.13, float64, 1 thread) and pasted here;
// no Python runs at test time.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/tanh_formula.h"
#include "runtime/tensor_ops.h"
#include "runtime/threadpool.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::same_bits;

namespace {

std::vector<double> random_vec(std::mt19937_64 &rng, int64_t n) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto &x : v) x = u(rng);
  return v;
}

// Every CPU path this machine supports.
std::vector<const char *> cpu_paths() {
  std::vector<const char *> paths;
  for (const char *p : {"avx512f", "avx2", "default"})
    if (force_simd_path(p)) paths.push_back(p);
  force_simd_path(nullptr);
  return paths;
}

// Restores automatic path choice and the default thread count after a test.
struct KernelSettingsGuard {
  int threads = compute_threads();
  ~KernelSettingsGuard() {
    force_simd_path(nullptr);
    set_compute_threads(threads);
  }
};

int64_t offset_of(const Shape &s, const Shape &os, const int64_t *idx) {
  // Row-major offset in `s` of output index `idx` under broadcasting.
  int64_t off = 0;
  for (int i = 0; i < s.rank; i++) {
    int oi = os.rank - s.rank + i;
    int64_t ix = s.dim[i] == 1 ? 0 : idx[oi];
    off = off * s.dim[i] + ix;
  }
  return off;
}

void next_index(const Shape &s, int64_t *idx) {
  for (int d = s.rank - 1; d >= 0; d--) {
    if (++idx[d] < s.dim[d]) return;
    idx[d] = 0;
  }
}

std::vector<double> naive_binary(BinaryOp op, const std::vector<double> &a, const Shape &as,
                                 const std::vector<double> &b, const Shape &bs, const Shape &os) {
  std::vector<double> out(size_t(os.size()));
  int64_t idx[kMaxRank] = {};
  for (int64_t i = 0; i < os.size(); i++) {
    out[size_t(i)] = apply_binary(op, a[size_t(offset_of(as, os, idx))], b[size_t(offset_of(bs, os, idx))]);
    next_index(os, idx);
  }
  return out;
}

Shape random_shape(std::mt19937_64 &rng, int rank) {
  static const int64_t dims[] = {1, 2, 3, 5, 7, 8, 9, 17};
  Shape s;
  s.rank = rank;
  for (int i = 0; i < rank; i++) s.dim[i] = dims[rng() % 8];
  return s;
}

}  // namespace

TEST_CASE("shape strings and broadcasting", "[kernels]") {
  CHECK(shape_string(Shape{}) == "scalar");
  CHECK(shape_string(Shape::of({7})) == "7");
  CHECK(shape_string(Shape::of({2, 3})) == "2x3");
  Shape out;
  REQUIRE(broadcast_shapes(Shape::of({2, 3}), Shape::of({3}), out));
  CHECK(out == Shape::of({2, 3}));
  REQUIRE(broadcast_shapes(Shape::of({4, 1}), Shape::of({1, 5}), out));
  CHECK(out == Shape::of({4, 5}));
  REQUIRE(broadcast_shapes(Shape{}, Shape::of({2, 1, 3}), out));
  CHECK(out == Shape::of({2, 1, 3}));
  REQUIRE(broadcast_shapes(Shape::of({8, 1, 6, 1}), Shape::of({7, 1, 5}), out));
  CHECK(out == Shape::of({8, 7, 6, 5}));
  CHECK_FALSE(broadcast_shapes(Shape::of({2, 3}), Shape::of({4, 3}), out));
  CHECK_FALSE(broadcast_shapes(Shape::of({3}), Shape::of({4}), out));
}

TEST_CASE("matmul matches the naive k-ascending loop on every path and thread count", "[kernels]") {
  KernelSettingsGuard guard;
  std::mt19937_64 rng(12345);
  const int64_t sizes[][3] = {{1, 1, 1},     {1, 7, 1},     {7, 1, 7},      {4, 4, 4},      {5, 3, 9},
                              {8, 16, 8},    {67, 5, 3},    {3, 67, 25},    {67, 67, 67},   {9, 300, 49},
                              {1, 513, 70},  {67, 300, 70}, {130, 64, 257}, {33, 257, 193}, {70, 600, 410},
                              {20, 40, 530}, {67, 9, 1024}};
  auto paths = cpu_paths();
  REQUIRE(!paths.empty());
  for (auto &sz : sizes) {
    int64_t m = sz[0], k = sz[1], n = sz[2];
    auto a = random_vec(rng, m * k), b = random_vec(rng, k * n);
    std::vector<double> want(size_t(m * n));
    k_matmul_reference(a.data(), b.data(), want.data(), m, k, n);
    for (const char *path : paths) {
      REQUIRE(force_simd_path(path));
      for (int threads : {1, 2, 3}) {
        set_compute_threads(threads);
        std::vector<double> got(size_t(m * n), -1.0);
        k_matmul(a.data(), b.data(), got.data(), m, k, n);
        INFO("m=" << m << " k=" << k << " n=" << n << " path=" << path << " threads=" << threads);
        CHECK(same_bits(got, want));
      }
    }
  }
}

TEST_CASE("matmul adds products in k order starting from 0.0", "[kernels]") {
  // 1e16 + 1 - 1e16 depends on the order: k ascending gives 0 (1 is lost),
  // any other order can give 1. And 0.0 + (-0.0) is +0.0.
  double a[3] = {1e16, 1.0, -1e16};
  double b[3] = {1.0, 1.0, 1.0};
  double c = 99;
  k_matmul(a, b, &c, 1, 3, 1);
  CHECK(c == 0.0);
  double z[1] = {-1.0}, w[1] = {0.0}, r = 99;
  k_matmul(z, w, &r, 1, 1, 1);
  CHECK_FALSE(std::signbit(r));
}

TEST_CASE("elementwise broadcasting matches the naive per-element loop", "[kernels]") {
  KernelSettingsGuard guard;
  std::mt19937_64 rng(777);
  const BinaryOp ops[] = {BinaryOp::Add,     BinaryOp::Sub,     BinaryOp::Mul,  BinaryOp::Div,  BinaryOp::Pow,
                          BinaryOp::Maximum, BinaryOp::Minimum, BinaryOp::Less, BinaryOp::Equal};
  for (const char *path : cpu_paths()) {
    REQUIRE(force_simd_path(path));
    for (int trial = 0; trial < 200; trial++) {
      Shape os = random_shape(rng, int(rng() % 5));
      // Operands: os with some dims set to 1 and some leading dims dropped.
      Shape as, bs;
      for (Shape *s : {&as, &bs}) {
        int drop = os.rank ? int(rng() % (os.rank + 1)) : 0;
        s->rank = os.rank - drop;
        for (int i = 0; i < s->rank; i++) s->dim[i] = (rng() % 3 == 0) ? 1 : os.dim[i + drop];
      }
      Shape bcast;
      REQUIRE(broadcast_shapes(as, bs, bcast));
      auto a = random_vec(rng, as.size()), b = random_vec(rng, bs.size());
      for (BinaryOp op : ops) {
        auto want = naive_binary(op, a, as, b, bs, bcast);
        std::vector<double> got(size_t(bcast.size()));
        k_binary(op, a.data(), as, b.data(), bs, got.data(), bcast);
        INFO(shape_string(as) << " op " << int(op) << " " << shape_string(bs) << " path " << path);
        CHECK(same_bits(got, want));
      }
    }
  }
}

TEST_CASE("maximum and minimum propagate NaN and keep the first of equals", "[kernels]") {
  double nan = std::nan("");
  CHECK(std::isnan(apply_binary(BinaryOp::Maximum, nan, 1.0)));
  CHECK(std::isnan(apply_binary(BinaryOp::Maximum, 1.0, nan)));
  CHECK(std::signbit(apply_binary(BinaryOp::Maximum, -0.0, 0.0)));
  CHECK_FALSE(std::signbit(apply_binary(BinaryOp::Maximum, 0.0, -0.0)));
  double a[5] = {1, nan, 3, -4, 5}, b[1] = {2}, out[5];
  k_binary(BinaryOp::Maximum, a, Shape::of({5}), b, Shape::of({1}), out, Shape::of({5}));
  CHECK(out[0] == 2);
  CHECK(std::isnan(out[1]));
  CHECK(out[2] == 3);
  CHECK(out[3] == 2);
  CHECK(out[4] == 5);
}

TEST_CASE("unary ops match the scalar definitions bit for bit", "[kernels]") {
  KernelSettingsGuard guard;
  std::mt19937_64 rng(99);
  auto x = random_vec(rng, 67);
  x[0] = 0.0;
  x[1] = -0.0;
  for (const char *path : cpu_paths()) {
    REQUIRE(force_simd_path(path));
    for (const UnaryOpRow &r : kUnaryOps) {  // every row of runtime/op_table.h
      UnaryOp op = r.op;
      std::vector<double> want(x.size()), got(x.size());
      for (size_t i = 0; i < x.size(); i++) want[i] = apply_unary(op, x[i]);
      k_unary(op, x.data(), int64_t(x.size()), got.data());
      INFO("op " << int(op) << " path " << path);
      CHECK(same_bits(got, want));
    }
  }
  CHECK(apply_unary(UnaryOp::Relu, -0.0) == 0.0);
  CHECK(apply_unary(UnaryOp::ReluGrad, 0.0) == 0.0);
}

namespace {

// Inputs that reach every branch-free corner of tanh_formula: signed zeros,
// subnormals, the clamp at 20 and around it, huge values, infinities and NaNs
// with both signs and a payload, then random values over many binades.
std::vector<double> tanh_inputs(std::mt19937_64 &rng) {
  std::vector<double> x = {0.0,       -0.0,         5e-324,        -5e-324,       1e-310,     0x1p-30,
                           -0x1p-30,  0.5,          -0.5,          20.0,          -20.0,      19.99,
                           20.01,     19.1,         1e300,         -1e300,        1e10,       HUGE_VAL,
                           -HUGE_VAL, std::nan(""), -std::nan(""), std::nan("7"), 0.34657359, 1.0};
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  for (int i = 0; i < 4000; i++) x.push_back(std::ldexp(mant(rng), int(rng() % 70) - 60));
  return x;
}

// Distance of `got` from the exact value `ref`, in ulps of the rounded result.
double ulp_error(double got, long double ref) {
  double r = double(ref);
  double ulp = std::nextafter(std::fabs(r), HUGE_VAL) - std::fabs(r);
  return double(std::fabs((long double)got - ref)) / ulp;
}

}  // namespace

TEST_CASE("tanh_formula: within 2.6 ulp of tanh, exact at the edges", "[kernels]") {
  using tanh_formula::tanh_formula;
  std::mt19937_64 rng(7);
  double worst = 0.0, worst_at = 0.0;
  for (double x : tanh_inputs(rng)) {
    if (std::isnan(x)) continue;
    double e = ulp_error(tanh_formula(x), tanhl((long double)x));
    if (e > worst) worst = e, worst_at = x;
  }
  std::uniform_real_distribution<double> mid(-6.0, 6.0);
  for (int i = 0; i < 200000; i++) {
    double x = mid(rng);
    double e = ulp_error(tanh_formula(x), tanhl((long double)x));
    if (e > worst) worst = e, worst_at = x;
  }
  INFO("worst " << worst << " ulp at " << worst_at);
  CHECK(worst <= 2.6);
  CHECK(std::signbit(tanh_formula(-0.0)));
  CHECK(tanh_formula(0.0) == 0.0);
  CHECK(!std::signbit(tanh_formula(0.0)));
  CHECK(tanh_formula(5e-324) == 5e-324);
  CHECK(tanh_formula(HUGE_VAL) == 1.0);
  CHECK(tanh_formula(-HUGE_VAL) == -1.0);
  CHECK(tanh_formula(20.0) == 1.0);
  CHECK(tanh_formula(-1e300) == -1.0);
  CHECK(tanh_formula(19.0) < 1.0);
  double nan = std::nan("7"), back = tanh_formula(nan);
  CHECK(same_bits(nan, back));  // a NaN comes back unchanged
  CHECK(apply_unary(UnaryOp::Tanh, 0.75) == tanh_formula(0.75));
}

TEST_CASE("tanh: vector lanes equal tanh_formula bit for bit on every path", "[kernels]") {
  KernelSettingsGuard guard;
  std::mt19937_64 rng(11);
  std::vector<double> x = tanh_inputs(rng);
  x.push_back(0.25);  // an odd length: the last elements take the scalar tail
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); i++) want[i] = tanh_formula::tanh_formula(x[i]);
  for (const char *path : cpu_paths()) {
    REQUIRE(force_simd_path(path));
    std::vector<double> got(x.size());
    k_unary(UnaryOp::Tanh, x.data(), int64_t(x.size()), got.data());
    INFO("path " << path);
    CHECK(same_bits(got, want));
  }
}

TEST_CASE("reductions follow the documented orders", "[kernels]") {
  KernelSettingsGuard guard;
  std::mt19937_64 rng(4242);
  for (const char *path : cpu_paths()) {
    REQUIRE(force_simd_path(path));
    for (int trial = 0; trial < 60; trial++) {
      Shape s = random_shape(rng, 1 + int(rng() % 4));
      auto x = random_vec(rng, s.size());
      // Full sum: row-major from 0.0.
      double want_sum = 0.0;
      for (double v : x) want_sum = want_sum + v;
      CHECK(k_sum(x.data(), s.size()) == want_sum);
      CHECK(k_mean(x.data(), s.size()) == want_sum / double(s.size()));
      for (int axis = 0; axis < s.rank; axis++) {
        int64_t outer = 1, inner = 1, len = s.dim[axis];
        for (int i = 0; i < axis; i++) outer *= s.dim[i];
        for (int i = axis + 1; i < s.rank; i++) inner *= s.dim[i];
        std::vector<double> sum(size_t(outer * inner)), mx(sum.size()), mean(sum.size());
        for (int64_t o = 0; o < outer; o++)
          for (int64_t t = 0; t < inner; t++) {
            double acc = 0.0, m = x[size_t(o * len * inner + t)];
            for (int64_t p = 0; p < len; p++) {
              double v = x[size_t((o * len + p) * inner + t)];
              acc = acc + v;
              if (v > m) m = v;
            }
            sum[size_t(o * inner + t)] = acc;
            mean[size_t(o * inner + t)] = acc / double(len);
            mx[size_t(o * inner + t)] = m;
          }
        std::vector<double> got(sum.size());
        INFO(shape_string(s) << " axis " << axis << " path " << path);
        k_sum_axis(x.data(), s, axis, got.data());
        CHECK(same_bits(got, sum));
        k_mean_axis(x.data(), s, axis, got.data());
        CHECK(same_bits(got, mean));
        k_max_axis(x.data(), s, axis, got.data());
        CHECK(same_bits(got, mx));
      }
    }
  }
}

TEST_CASE("max reductions: first maximal element, NaN propagates", "[kernels]") {
  double nan = std::nan("");
  double x[6] = {1, 5, 2, 5, -1, 0};
  CHECK(k_max(x, 6) == 5);
  CHECK(k_argmax(x, 6) == 1);
  double y[4] = {1, nan, 7, 2};
  CHECK(std::isnan(k_max(y, 4)));
  CHECK(k_argmax(y, 4) == 1);
  double out[2];
  double z[4] = {nan, 1, 2, 3};  // 2x2, axis 0
  k_max_axis(z, Shape::of({2, 2}), 0, out);
  CHECK(std::isnan(out[0]));
  CHECK(out[1] == 3);
}

TEST_CASE("sum_to reduces a broadcast gradient in row-major order", "[kernels]") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 50; trial++) {
    Shape gs = random_shape(rng, 1 + int(rng() % 4));
    Shape ts;
    int drop = int(rng() % (gs.rank + 1));
    ts.rank = gs.rank - drop;
    for (int i = 0; i < ts.rank; i++) ts.dim[i] = rng() % 2 ? 1 : gs.dim[i + drop];
    auto g = random_vec(rng, gs.size());
    std::vector<double> want(size_t(ts.size()), 0.0), got(want.size());
    int64_t idx[kMaxRank] = {};
    for (int64_t i = 0; i < gs.size(); i++) {
      int64_t o = offset_of(ts, gs, idx);
      want[size_t(o)] = want[size_t(o)] + g[size_t(i)];
      next_index(gs, idx);
    }
    k_sum_to(g.data(), gs, got.data(), ts);
    INFO(shape_string(gs) << " -> " << shape_string(ts));
    CHECK(same_bits(got, want));
  }
}

TEST_CASE("transpose permutes axes", "[kernels]") {
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 40; trial++) {
    Shape s = random_shape(rng, 1 + int(rng() % 4));
    int perm[kMaxRank];
    for (int i = 0; i < s.rank; i++) perm[i] = i;
    std::shuffle(perm, perm + s.rank, rng);
    auto x = random_vec(rng, s.size());
    Shape os;
    os.rank = s.rank;
    for (int i = 0; i < s.rank; i++) os.dim[i] = s.dim[perm[i]];
    std::vector<double> got(x.size()), want(x.size());
    int64_t idx[kMaxRank] = {};
    for (int64_t i = 0; i < os.size(); i++) {
      int64_t src_idx[kMaxRank];
      for (int d = 0; d < s.rank; d++) src_idx[perm[d]] = idx[d];
      int64_t off = 0;
      for (int d = 0; d < s.rank; d++) off = off * s.dim[d] + src_idx[d];
      want[size_t(i)] = x[size_t(off)];
      next_index(os, idx);
    }
    k_transpose(x.data(), s, perm, got.data());
    CHECK(same_bits(got, want));
  }
}

TEST_CASE("rank-2 transpose: register blocks and edges on every path", "[kernels]") {
  KernelSettingsGuard guard;
  std::mt19937_64 rng(9);
  const int64_t dims[][2] = {{1, 1}, {3, 17},   {8, 8},    {9, 16}, {17, 9},
                             {7, 3}, {64, 256}, {256, 64}, {5, 40}, {33, 65}};
  for (const char *path : cpu_paths()) {
    REQUIRE(force_simd_path(path));
    for (auto &d : dims) {
      Shape s = Shape::of({d[0], d[1]});
      auto x = random_vec(rng, s.size());
      std::vector<double> got(x.size()), want(x.size());
      for (int64_t i = 0; i < d[1]; i++)
        for (int64_t j = 0; j < d[0]; j++) want[size_t(i * d[0] + j)] = x[size_t(j * d[1] + i)];
      int perm[2] = {1, 0};
      k_transpose(x.data(), s, perm, got.data());
      INFO(shape_string(s) << " path=" << path);
      CHECK(same_bits(got, want));
    }
  }
}

TEST_CASE("sum_to onto one element is the row-major chain from 0.0", "[kernels]") {
  std::mt19937_64 rng(10);
  for (Shape target : {Shape{}, Shape::of({1}), Shape::of({1, 1})}) {
    Shape gs = Shape::of({64, 64});
    auto g = random_vec(rng, gs.size());
    g[3] = -0.0;
    double want = 0.0;
    for (double v : g) want = want + v;
    double got = 1.0;
    k_sum_to(g.data(), gs, &got, target);
    CHECK(same_bits(got, want));
  }
  double minus_zero = -0.0, got = 1.0;  // 0.0 + -0.0 is +0.0, as the chain says
  k_sum_to(&minus_zero, Shape{}, &got, Shape{});
  CHECK_FALSE(std::signbit(got));
}

TEST_CASE("select picks elementwise under broadcasting", "[kernels]") {
  double cond[3] = {1, 0, 1}, a[1] = {10}, b[6] = {1, 2, 3, 4, 5, 6}, out[6];
  k_select(cond, Shape::of({3}), a, Shape{}, b, Shape::of({2, 3}), out, Shape::of({2, 3}));
  double want[6] = {10, 2, 10, 10, 5, 10};
  for (int i = 0; i < 6; i++) CHECK(out[i] == want[i]);
}

TEST_CASE("select: whole, scalar and broadcast operands on every path", "[kernels]") {
  KernelSettingsGuard guard;
  std::mt19937_64 rng(11);
  const Shape os = Shape::of({5, 19});
  const Shape shapes[] = {os, Shape{}, Shape::of({1, 19}), Shape::of({5, 1})};
  for (const char *path : cpu_paths()) {
    REQUIRE(force_simd_path(path));
    for (const Shape &cs : shapes)
      for (const Shape &as : shapes)
        for (const Shape &bs : shapes) {
          auto c = random_vec(rng, cs.size()), a = random_vec(rng, as.size()), b = random_vec(rng, bs.size());
          for (size_t i = 0; i < c.size(); i += 2) c[i] = 0.0;
          std::vector<double> got(size_t(os.size()), -1.0), want(size_t(os.size()));
          int64_t idx[kMaxRank] = {};
          for (int64_t i = 0; i < os.size(); i++) {
            want[size_t(i)] = c[size_t(offset_of(cs, os, idx))] != 0.0 ? a[size_t(offset_of(as, os, idx))]
                                                                       : b[size_t(offset_of(bs, os, idx))];
            next_index(os, idx);
          }
          k_select(c.data(), cs, a.data(), as, b.data(), bs, got.data(), os);
          INFO(shape_string(cs) << " " << shape_string(as) << " " << shape_string(bs) << " path=" << path);
          CHECK(same_bits(got, want));
        }
  }
}

// ---- PyTorch float64 reference values -------------------------------------------
// a[i][k] = 0.1*(i+1) + 0.01*k (3x4), b[k][j] = 0.3*(k+1) - 0.07*j (4x5),
// x[i] = -2 + 0.37*i (8), c[i] = 0.5 + i (3x1), e[j] = 1.25*j - 0.75 (4).
namespace {
void check_close(const double *got, const std::vector<double> &want, double rel) {
  for (size_t i = 0; i < want.size(); i++) {
    INFO("element " << i << " got " << got[i] << " torch " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= rel * std::max(1.0, std::fabs(want[i])));
  }
}
}  // namespace

TEST_CASE("kernels agree with PyTorch float64", "[kernels]") {
  double a[12], b[20], x[8], c[3], e[4];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 4; k++) a[i * 4 + k] = 0.1 * (i + 1) + 0.01 * k;
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 5; j++) b[k * 5 + j] = 0.3 * (k + 1) - 0.07 * j;
  for (int i = 0; i < 8; i++) x[i] = -2 + 0.37 * i;
  for (int i = 0; i < 3; i++) c[i] = 0.5 + i;
  for (int j = 0; j < 4; j++) e[j] = 1.25 * j - 0.75;

  // Sums and matmuls: torch may add in another order, so allow a few ulps;
  // elementwise ops are compared more tightly.
  const double sum_rel = 1e-15, fn_rel = 4e-16;
  double out[20];
  k_matmul(a, b, out, 3, 4, 5);
  check_close(out,
              {0.35999999999999999, 0.32779999999999998, 0.29559999999999997, 0.26339999999999997,
               0.23119999999999996, 0.66000000000000003, 0.59979999999999989, 0.53959999999999997,
               0.47939999999999999, 0.41919999999999991, 0.96000000000000019, 0.87180000000000013,
               0.78360000000000007, 0.69540000000000002, 0.60719999999999996},
              sum_rel);
  k_sum_axis(a, Shape::of({3, 4}), 0, out);
  check_close(out, {0.60000000000000009, 0.63000000000000012, 0.66000000000000014, 0.69000000000000006},
              sum_rel);
  k_sum_axis(a, Shape::of({3, 4}), 1, out);
  check_close(out, {0.46000000000000002, 0.85999999999999999, 1.2600000000000002}, sum_rel);
  k_mean_axis(a, Shape::of({3, 4}), 1, out);
  check_close(out, {0.115, 0.215, 0.31500000000000006}, sum_rel);
  out[0] = k_sum(a, 12);
  check_close(out, {2.5800000000000005}, sum_rel);

  k_unary(UnaryOp::Sigmoid, x, 8, out);
  check_close(out,
              {0.11920292202211755, 0.16383036122335892, 0.22097389222018785, 0.29110982743388003,
               0.37285223368680442, 0.46257015465625045, 0.55477923510721461, 0.64336514569440173},
              fn_rel);
  k_unary(UnaryOp::Tanh, x, 8, out);
  check_close(out,
              {-0.9640275800758169, -0.92606158140664585, -0.85106410966794388, -0.71139373181896259,
               -0.477700012168498, -0.1488850336233179, 0.2165180614930286, 0.52989560752752929},
              fn_rel);
  k_unary(UnaryOp::Exp, x, 8, out);
  check_close(out,
              {0.1353352832366127, 0.19592957412690937, 0.2836540264997704, 0.41065575275234545,
               0.59452054797019438, 0.86070797642505792, 1.2460767305873806, 1.8039884153978567},
              fn_rel);

  k_binary(BinaryOp::Div, c, Shape::of({3, 1}), e, Shape::of({4}), out, Shape::of({3, 4}));
  check_close(out,
              {-0.66666666666666663, 1, 0.2857142857142857, 0.16666666666666666, -2, 3, 0.8571428571428571,
               0.5, -3.3333333333333335, 5, 1.4285714285714286, 0.83333333333333337},
              0.0);
  k_binary(BinaryOp::Pow, c, Shape::of({3, 1}), e, Shape::of({4}), out, Shape::of({3, 4}));
  check_close(out,
              {1.681792830507429, 0.70710678118654757, 0.29730177875068026, 0.125, 0.73778794646688106,
               1.2247448713915889, 2.0331045081221508, 3.375, 0.50297337187317415, 1.5811388300841898,
               4.9704420547940664, 15.625},
              fn_rel);
}

// Long loops poll for Ctrl-C (issue 35): with g_interrupt set, each op raises
// `interrupted` (and clears the flag) instead of running to its end; the
// thread pool starts no chunk. Without it they run whole, as above.
TEST_CASE("tensor loops answer Ctrl-C", "[kernels]") {
  const int64_t n = int64_t(1) << 20;
  std::vector<double> x(size_t(n), 0.5), out(size_t(n), -1.0);
  Shape s;
  s.rank = 1;
  s.dim[0] = n;
  g_interrupt = 1;
  CHECK_THROWS_AS(k_unary(UnaryOp::Exp, x.data(), n, out.data()), InterruptThrow);
  CHECK(g_interrupt == 0);
  CHECK(out[size_t(n) - 1] == -1.0);  // stopped before the end
  g_interrupt = 1;
  CHECK_THROWS_AS(k_binary(BinaryOp::Add, x.data(), s, x.data(), s, out.data(), s), InterruptThrow);
  g_interrupt = 1;
  CHECK_THROWS_AS(k_sum(x.data(), n), InterruptThrow);
  const int64_t m = 256;
  std::vector<double> a(size_t(m * m), 1.0), c(size_t(m * m), -1.0);
  int saved_threads = compute_threads();
  for (int threads : {1, 2}) {
    set_compute_threads(threads);
    g_interrupt = 1;
    CHECK_THROWS_AS(k_matmul(a.data(), a.data(), c.data(), m, m, m), InterruptThrow);
    CHECK(g_interrupt == 0);
    k_matmul(a.data(), a.data(), c.data(), m, m, m);
    CHECK(c[size_t(m * m) - 1] == double(m));
  }
  set_compute_threads(saved_threads);
  int64_t ran = 0;
  g_interrupt = 1;
  parallel_for(
      64, 2, [](void *ctx, int64_t) { ++*static_cast<int64_t *>(ctx); }, &ran);
  CHECK(ran == 0);
  g_interrupt = 0;
  parallel_for(
      64, 1, [](void *ctx, int64_t) { ++*static_cast<int64_t *>(ctx); }, &ran);
  CHECK(ran == 64);
  k_unary(UnaryOp::Exp, x.data(), n, out.data());
  CHECK(out[size_t(n) - 1] == std::exp(0.5));
}

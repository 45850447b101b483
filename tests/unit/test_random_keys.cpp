// test_random_keys.cpp — runtime/random_keys.h: the counter-based draws against
// SplitMix64's stream (so seeded tensor-rand/randn keep their numbers), key
// parsing at its edges, thread counts, and gelu's shared formula on every CPU path.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "runtime/gelu_formula.h"
#include "runtime/number.h"
#include "runtime/random_keys.h"
#include "runtime/tanh_formula.h"
#include "runtime/tensor_ops.h"
#include "tests/support/same_bits.h"

using namespace kiln;
using kiln::test::same_bits;

TEST_CASE("random: uniform draw i is SplitMix64's output i", "[random]") {
  for (uint64_t key : {uint64_t(0), uint64_t(42), uint64_t(-5), uint64_t(1) << 63}) {
    SplitMix64 rng(key);
    for (uint64_t i = 0; i < 1000; i++) {
      double want = rng.next_double();
      CHECK(same_bits(random_uniform(key, i), want));
    }
  }
}

TEST_CASE("random: normals are Box-Muller over the uniform pairs", "[random]") {
  const double two_pi = 6.283185307179586;
  for (uint64_t key : {uint64_t(3), uint64_t(77)}) {
    SplitMix64 rng(key);
    for (uint64_t p = 0; p < 300; p++) {
      double u1 = 1.0 - rng.next_double(), u2 = rng.next_double();
      double r = std::sqrt(-2.0 * std::log(u1));
      CHECK(same_bits(random_normal(key, 2 * p), r * std::cos(two_pi * u2)));
      CHECK(same_bits(random_normal(key, 2 * p + 1), r * std::sin(two_pi * u2)));
    }
  }
}

TEST_CASE("random: split keys are below 2^53, distinct and depend on the key", "[random]") {
  std::vector<uint64_t> seen;
  for (uint64_t key : {uint64_t(0), uint64_t(1), uint64_t(-1)})
    for (uint64_t j = 0; j < 50; j++) {
      uint64_t k = random_split(key, j);
      CHECK(k < (uint64_t(1) << 53));
      for (uint64_t s : seen) CHECK(s != k);
      seen.push_back(k);
    }
  // Not tensor-rand's stream scaled: the salt separates them.
  CHECK(random_split(5, 0) != (random_formula::splitmix_at(uint64_t(5), uint64_t(0)) >> 11));
}

TEST_CASE("random: a key is an integral double from -2^63 up to but not including 2^63", "[random]") {
  uint64_t k = 99;
  CHECK(random_key_of_double(0.0, k));
  CHECK(k == 0);
  CHECK(random_key_of_double(-0.0, k));
  CHECK(k == 0);
  CHECK(random_key_of_double(-3.0, k));
  CHECK(k == uint64_t(-3));
  CHECK(random_key_of_double(-0x1.0p63, k));
  CHECK(k == uint64_t(1) << 63);
  CHECK(random_key_of_double(0x1.0p53 + 2.0, k));
  CHECK(k == (uint64_t(1) << 53) + 2);
  for (double bad : {0.5, -1.5, 0x1.0p63, 1e300, -1e300, HUGE_VAL, -HUGE_VAL, std::nan("")}) {
    INFO(bad);
    CHECK_FALSE(random_key_of_double(bad, k));
  }
}

TEST_CASE("random: k_random gives the same bits for any thread count and range split", "[random]") {
  const int64_t n = 100003;  // above the threading threshold, odd
  for (RandomKind kind : {RandomKind::Uniform, RandomKind::Normal, RandomKind::Split, RandomKind::Dropout}) {
    std::vector<double> serial(static_cast<size_t>(n)), threaded(serial), pieces(serial);
    set_compute_threads(1);
    k_random(kind, 1234, serial.data(), 0, n);
    set_compute_threads(3);
    k_random(kind, 1234, threaded.data(), 0, n);
    k_random(kind, 1234, pieces.data(), 0, 777);
    k_random(kind, 1234, pieces.data(), 777, n);
    set_compute_threads(1);
    CHECK(same_bits(serial, threaded));
    CHECK(same_bits(serial, pieces));
  }
  std::vector<double> u(1000);
  k_random(RandomKind::Uniform, 8, u.data(), 0, 1000);
  double sum = 0.0;
  for (double x : u) {
    CHECK(x >= 0.0);
    CHECK(x < 1.0);
    sum += x;
  }
  CHECK(std::fabs(sum / 1000.0 - 0.5) < 0.05);
}

TEST_CASE("gelu: every CPU path equals the scalar formula, tails included", "[random][gelu]") {
  std::vector<double> x;
  for (int i = -400; i <= 400; i++) x.push_back(double(i) * 0.0173);
  for (double s : {0.0, -0.0, 5e-324, 1e-300, 30.0, -30.0, 800.0, -800.0, HUGE_VAL, -HUGE_VAL, std::nan("")})
    x.push_back(s);
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); i++) want[i] = gelu_formula::gelu(x[i]);
  for (const char *path : {"avx512f", "avx2", "default"}) {
    if (!force_simd_path(path)) continue;
    INFO(path);
    for (size_t off : {size_t(0), size_t(1), size_t(3)}) {
      std::vector<double> got(x.size() - off);
      k_unary(UnaryOp::Gelu, x.data() + off, int64_t(got.size()), got.data());
      for (size_t i = 0; i < got.size(); i++) CHECK(same_bits(got[i], want[i + off]));
    }
  }
  force_simd_path(nullptr);
  // PyTorch's gelu(approximate='tanh') at 1.0 (torch 1.13, float64).
  CHECK(std::fabs(gelu_formula::gelu(1.0) - 0.8411919906082768) < 1e-15);
}

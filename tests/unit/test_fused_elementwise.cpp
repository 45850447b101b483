// test_fused_elementwise.cpp — runtime/fused_elementwise: random nests of
// element-wise builtin calls, evaluated fused, give the same bits as the same
// calls made one at a time (each result bound by let*, which stops fusion), on
// every CPU path, over shapes that end in partial blocks, with scalars, rank-0
// tensors, NaNs and signed zeros among the operands.
#include <fmt/format.h>
#include <gc/gc.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/tensor_ops.h"

using namespace kiln;

namespace {

// Every fusable builtin of runtime/op_table.h.
template <class Row, size_t N> std::vector<const char *> fusable_names(const Row (&rows)[N]) {
  std::vector<const char *> names;
  for (const Row &r : rows)
    if (r.fusable) names.push_back(r.builtin);
  return names;
}
const std::vector<const char *> kBinary = fusable_names(kBinaryOps);
const std::vector<const char *> kUnary = fusable_names(kUnaryOps);
const char *const kLeaves[] = {"a", "b", "c", "s", "z", "0.5", "-2", "-0.0"};

// One random tree of calls written as let* bindings t0, t1, ... (`steps`), the
// last one the result; grow_nested writes the same tree as nested calls (the
// same seed draws the same numbers in the same order).
struct Nest {
  std::string steps;
  int count = 0;
};

std::string grow(std::mt19937 &rng, int depth, Nest &out) {
  if (depth == 0 || rng() % 4 == 0) return kLeaves[rng() % 8];
  bool unary = rng() % 3 == 0;
  std::string op = unary ? kUnary[rng() % kUnary.size()] : kBinary[rng() % kBinary.size()];
  std::string a = grow(rng, depth - 1, out);
  std::string call;
  if (unary) {
    call = fmt::format("({} {})", op, a);
  } else {
    std::string b = grow(rng, depth - 1, out);
    call = fmt::format("({} {} {})", op, a, b);
  }
  std::string name = fmt::format("t{}", out.count++);
  out.steps += fmt::format("({} {}) ", name, call);
  return name;
}

std::string grow_nested(std::mt19937 &rng, int depth) {
  if (depth == 0 || rng() % 4 == 0) return kLeaves[rng() % 8];
  bool unary = rng() % 3 == 0;
  std::string op = unary ? kUnary[rng() % kUnary.size()] : kBinary[rng() % kBinary.size()];
  std::string a = grow_nested(rng, depth - 1);
  if (unary) return fmt::format("({} {})", op, a);
  std::string b = grow_nested(rng, depth - 1);
  return fmt::format("({} {} {})", op, a, b);
}

}  // namespace

TEST_CASE("fused element-wise nests equal the calls one at a time, bit for bit", "[fused]") {
  // a, b, c: one shape with a partial last block (3 x 300 = 900 = 3 blocks + 132);
  // s: a rank-0 tensor; z: zeros and signed zeros, so log, division and pow meet
  // infinities and NaNs.
  eval_string(R"(
    (define a (tensor-randn '(3 300) 11))
    (define b (tensor-mul 3 (tensor-randn '(3 300) 12)))
    (define c (tensor-rand '(3 300) 13))
    (define s (tensor -1.5))
    (define z (tensor-mul (tensor-sub (tensor-rand '(3 300) 14) 0.5) 0.0))
    (define (same? x y) (equal? x y)))",
              "fused-test");
  std::vector<const char *> paths;
  for (const char *p : {"avx512f", "avx2", "default"})
    if (force_simd_path(p)) paths.push_back(p);
  for (uint32_t seed = 1; seed <= 60; seed++) {
    std::mt19937 rng_steps(seed), rng_nested(seed);
    Nest n;
    std::string last = grow(rng_steps, 3, n);
    if (n.count < 2) continue;  // a leaf or a single call: nothing to fuse
    std::string nested = grow_nested(rng_nested, 3);
    std::string program = fmt::format("(same? {} (let* ({}) {}))", nested, n.steps, last);
    for (const char *path : paths) {
      force_simd_path(path);
      INFO(program << " path=" << path);
      CHECK(eval_string(program, "fused-test") == TRUE_V);
    }
  }
  force_simd_path(nullptr);
}

TEST_CASE("fused element-wise nests fall back to the calls' own errors", "[fused]") {
  eval_string("(define fa (tensor '((1 2 3) (4 5 6))))", "fused-test");
  auto message = [](const char *src) -> std::string {
    try {
      eval_string(src, "fused-test");
    } catch (const LispError &) {
      return error_message_of(g_raised);
    }
    return "(no error)";
  };
  CHECK(message("(tensor-sub fa (tensor-mul 2 (tensor '(1 2))))") ==
        "tensor-sub: shapes 2x3 and 2 do not broadcast");
  CHECK(message("(tensor-sub fa (tensor-mul \"x\" fa))") ==
        "tensor-mul: argument 1 must be a number or a tensor, got \"x\"");
  CHECK(message("(tensor-add fa (relu undefined-leaf))") == "Undefined variable: undefined-leaf");
}

TEST_CASE("a fused nest allocates only its result", "[fused]") {
  eval_string(R"(
    (define fw (zeros '(256 64)))
    (define fg (ones '(256 64)))
    (define (sgd-step) (tensor-sub fw (tensor-mul 0.01 fg))))",
              "fused-test");
  eval_string("(sgd-step)", "fused-test");
  size_t before = GC_get_total_bytes();
  eval_string("(sgd-step)", "fused-test");
  size_t used = GC_get_total_bytes() - before;
  // One 128 KiB result; the calls one at a time would also make the 128 KiB product.
  CHECK(used >= 256 * 64 * 8);
  CHECK(used < 256 * 64 * 8 * 3 / 2);
}

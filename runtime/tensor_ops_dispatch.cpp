// tensor_ops_dispatch.cpp — compiles tensor_ops_simd.inc once per CPU path and picks
// the widest one the running CPU supports (see tensor_ops_dispatch.h).
#include "runtime/tensor_ops_dispatch.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "runtime/elementwise_formulas.h"
#include "runtime/eval.h"  // g_interrupt, which matmul_rows polls

namespace kiln {

// tanh_formula.h's number kit on vectors of W doubles. Defined here, outside the
// target regions below, so the formula templates (which carry no target options
// of their own) may call it; everything is always inlined into the loops of a
// region, and compiled with its options there.
template <int W> struct VectorKit {
  typedef double D __attribute__((vector_size(W * 8)));
  typedef int64_t I __attribute__((vector_size(W * 8)));
  typedef uint64_t U __attribute__((vector_size(W * 8)));
  static inline __attribute__((always_inline)) void bits(const D &x, I &out) { out = (I)x; }
  static inline __attribute__((always_inline)) void real(const I &i, D &out) { out = (D)i; }
  static inline __attribute__((always_inline)) void negative_mask(const I &v, I &out) {
    out = -(I)((U)v >> 63);
  }
};

namespace simd_avx512 {
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl")
#define KILN_VEC_DOUBLES 8
#include "runtime/tensor_ops_simd.inc"
#undef KILN_VEC_DOUBLES
#pragma GCC pop_options
}  // namespace simd_avx512

namespace simd_avx2 {
#pragma GCC push_options
#pragma GCC target("avx2")
#define KILN_VEC_DOUBLES 4
#include "runtime/tensor_ops_simd.inc"
#undef KILN_VEC_DOUBLES
#pragma GCC pop_options
}  // namespace simd_avx2

namespace simd_default {
#define KILN_VEC_DOUBLES 2
#include "runtime/tensor_ops_simd.inc"
#undef KILN_VEC_DOUBLES
}  // namespace simd_default

#define KILN_SIMD_TABLE(ns, label)                                                                     \
  SimdOps {                                                                                            \
    label, ns::matmul_rows, ns::binary_inner, ns::select_inner, ns::unary, ns::sum_axis, ns::max_axis, \
        ns::transpose2                                                                                 \
  }

static const SimdOps kAvx512 = KILN_SIMD_TABLE(simd_avx512, "avx512f");
static const SimdOps kAvx2 = KILN_SIMD_TABLE(simd_avx2, "avx2");
static const SimdOps kDefault = KILN_SIMD_TABLE(simd_default, "default");

static const SimdOps *best_path() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return &kAvx512;
  if (__builtin_cpu_supports("avx2")) return &kAvx2;
  return &kDefault;
}

static std::atomic<const SimdOps *> g_forced{nullptr};

const SimdOps &simd() {
  static const SimdOps *best = best_path();
  const SimdOps *f = g_forced.load(std::memory_order_relaxed);
  return f ? *f : *best;
}

const char *simd_path() { return simd().name; }

bool force_simd_path(const char *path) {
  if (!path) {
    g_forced.store(nullptr);
    return true;
  }
  __builtin_cpu_init();
  const SimdOps *want = nullptr;
  if (std::strcmp(path, "avx512f") == 0) {
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
      want = &kAvx512;
  } else if (std::strcmp(path, "avx2") == 0) {
    if (__builtin_cpu_supports("avx2")) want = &kAvx2;
  } else if (std::strcmp(path, "default") == 0) {
    want = &kDefault;
  }
  if (!want) return false;
  g_forced.store(want);
  return true;
}

}  // namespace kiln

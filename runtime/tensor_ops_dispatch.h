// tensor_ops_dispatch.h — the per-CPU-path table of vectorised loops (internal to tensor_ops).
//
// Invariant: every entry of every table computes bit-identical results (see
// tensor_ops.h); the tables differ only in the vector instructions they use, so
// choosing one is a pure speed decision and tests may force any path the CPU
// supports.
#pragma once
#include <cstdint>

#include "runtime/tensor_ops.h"

namespace kiln {

struct SimdOps {
  const char *name;
  void (*matmul_rows)(const double *a, const double *b, double *c, int64_t m0, int64_t m1, int64_t k,
                      int64_t n);
  void (*binary_inner)(BinaryOp op, const double *a, int64_t sa, const double *b, int64_t sb, double *out,
                       int64_t n);
  void (*select_inner)(const double *c, int64_t sc, const double *a, int64_t sa, const double *b, int64_t sb,
                       double *out, int64_t n);
  void (*unary)(UnaryOp op, const double *x, int64_t n, double *out);
  void (*sum_axis)(const double *x, int64_t outer, int64_t len, int64_t inner, double *out);
  void (*max_axis)(const double *x, int64_t outer, int64_t len, int64_t inner, double *out);
  // out (cols x rows) = x (rows x cols) transposed.
  void (*transpose2)(const double *x, int64_t rows, int64_t cols, double *out);
};

// The table in use: the widest path the CPU supports unless a test forced one.
const SimdOps &simd();

}  // namespace kiln

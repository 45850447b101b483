// codegen.h — lowering an optimised Graph (graph.h) to ONE C function built
// through the libgccjit API: the plan (kernel_plan.h) says where every value
// lives and in what order nodes are computed; the emitter (kernel_emitter.h)
// holds one lowering per op; emit_kernel joins the two. Contexts, compiling
// and the disk cache are jit_context.h and kernel_cache.h; the Lisp value that
// holds a compiled kernel is kernel_object.h.
//
// Invariants:
//   * emit_kernel follows the plan exactly: every node is computed by the step
//     kernel_emission_order gives it and stored where plan_kernel put it, so
//     KernelLayout alone tells the caller how to pass arguments, results and
//     scratch (the signature is in kernel_plan.h).
//   * The generated C depends only on what graph_canonical_text (graph_text.h)
//     writes, so the disk cache may key kernels by that text.
//   * Large matmuls are split into blocks of rows run through `par`, which never
//     changes a bit of the result.
#pragma once
#include <libgccjit.h>

#include <cstdint>

#include "compiler/batch_family.h"
#include "compiler/graph.h"
#include "compiler/kernel_plan.h"

namespace kiln {

// Emits kKernelFunction into `ctx` (a context from jit_new_context()). With a
// batch family (batch_family.h; planned at family->rows), the kernel reads the
// run-time leading size n from args[P + C][0] (a double, after the parameters
// and tensor constants) and every batched extent is n-long.
void emit_kernel(gcc_jit_context *ctx, const Graph &g, const KernelLayout &layout,
                 const BatchFamily *family = nullptr);

// ---- raw lowerings, exposed so unit tests can compare single ops with
// runtime/tensor_ops.h on arbitrary shapes without building a Graph --------------

// Emits `void NAME(double *a, double *b, double *c)` computing c = a * b
// (m x k times k x n) with the kernel's register-blocked matmul lowering.
void emit_matmul_function(gcc_jit_context *ctx, const char *name, int64_t m, int64_t k, int64_t n);

}  // namespace kiln

// codegen.h — lowering an optimised Graph (graph.h) to ONE C function built
// through the libgccjit API.
//
// Invariants:
//   * Every shape and loop bound is a compile-time constant of the generated code.
//   * Each op has exactly one lowering, used for forward and backward graphs
//     alike, and its loops perform, for every output element, the same sequence
//     of IEEE operations as the runtime/kernels.h kernel graph.h names for that op
//     (k ascending in matmul, row-major sums from 0.0, one division for a mean, no
//     fused multiply-add: contexts come from jit_new_context with
//     -ffp-contract=off). Vectors only ever span independent output elements.
//   * Generated signature (kKernelFunction):
//       void kiln_kernel(double **args, double **results, double *scratch,
//                        void (*par)(long chunks, void (*chunk)(void *, long), void *ctx))
//     args[0..P) are the parameters' data read in place (a number argument is a
//     pointer to one double), args[P..P+C) the graph's tensor constants;
//     results[o] receives output o (a number output: one double); scratch holds
//     every intermediate at an offset fixed here (64-byte aligned), allocated once
//     per kernel by the caller. `par` runs chunk(ctx, i) for i in [0, chunks),
//     on Kiln's thread pool (runtime/threadpool.h): large matmuls are split into
//     blocks of rows, which never changes a bit of the result.
#pragma once
#include <libgccjit.h>

#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"

namespace kiln {

constexpr const char *kKernelFunction = "kiln_kernel";
using KernelParFn = void (*)(long chunks, void (*chunk)(void *, long), void *ctx);

struct KernelLayout {
  enum class Place : uint8_t { Arg, ConstScalar, ConstTensor, Scratch, Result };
  struct Slot {
    Place place = Place::Scratch;
    int32_t index = 0;   // Arg: argument number; ConstTensor: args index; Result: output number
    int64_t offset = 0;  // Scratch: offset in doubles
  };
  std::vector<Slot> slots;           // one per node
  std::vector<int32_t> const_nodes;  // tensor Const nodes, passed after the parameters
  int64_t scratch_doubles = 0;
  int num_params = 0;
};

// Decides where each node's value lives (see the header comment).
KernelLayout plan_kernel(const Graph &g);

// One step of emit_kernel: node `node`; for a serial sum (Sum, Mean, or SumTo
// onto one element), possibly a second independent serial sum of the same
// length `paired` computed in the same loop, their add chains overlapping, and
// possibly a rank-2 transpose `host` whose loop carries the sums: each of its
// iterations also adds the next elements to the chains, so the copies fill the
// time the chains wait on the add's latency. Summation order is unchanged.
struct EmitStep {
  int32_t node;
  int32_t paired = -1;
  int32_t host = -1;
  // Element-wise steps over the same n elements (operands of n elements or
  // one) run as one loop with the steps after them while this is set.
  bool fuse_next = false;
};

// The order emit_kernel computes nodes in: index order, except that a serial
// sum moves down to the first later one of the same length that does not depend
// on it, to pair with it (the nodes between that depend on the first follow the
// pair), and a later materialised rank-2 transpose whose input is already
// computed moves up to host the sum or pair. Steps without a loop (parameters,
// constants, element-wise ops on one element) then move up to just after their
// operands, and consecutive element-wise steps of one size are marked to run as
// one loop. Every node appears in one step.
std::vector<EmitStep> kernel_emission_order(const Graph &g);

// Emits kKernelFunction into `ctx` (a context from jit_new_context()).
void emit_kernel(gcc_jit_context *ctx, const Graph &g, const KernelLayout &layout);

// A text that determines the generated code completely: every node's op,
// attributes, operands and shape, scalar constants' bit patterns, tensor
// constants' shapes (their data is passed at run time), and the outputs.
std::string graph_canonical_text(const Graph &g);

// ---- raw lowerings, exposed so unit tests can compare single ops with
// runtime/kernels.h on arbitrary shapes without building a Graph --------------

// Emits `void NAME(double *a, double *b, double *c)` computing c = a * b
// (m x k times k x n) with the kernel's register-blocked matmul lowering.
void emit_matmul_function(gcc_jit_context *ctx, const char *name, int64_t m, int64_t k, int64_t n);

}  // namespace kiln

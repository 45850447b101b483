// kernel_plan.h — the plan of a compiled kernel, decided before any code is
// emitted: where each node's value lives and the order (and grouping into
// loops) in which emit_kernel (codegen.h) computes the nodes. Plain data over a
// Graph; nothing here knows libgccjit.
//
// Invariants:
//   * The graph is optimised (graph.h): operands precede their readers, so
//     index order is a valid schedule and every reordering below keeps every
//     operand before its readers.
//   * Generated signature (kKernelFunction):
//       void kiln_kernel(double **args, double **results, double *scratch,
//                        void (*par)(long chunks, void (*chunk)(void *, long), void *ctx))
//     args[0..P) are the parameters' data read in place (a number argument is a
//     pointer to one double), args[P..P+C) the graph's tensor constants;
//     results[o] receives output o (a number output: one double); scratch holds
//     every intermediate at an offset fixed by plan_kernel (64-byte aligned),
//     allocated once per kernel by the caller; it also holds, per Take or
//     ScatterAdd node, two doubles the kernel writes on every call: 1.0 and the
//     first bad index when an index was not an integer in range (the kernel
//     then read entry 0 instead), else 0.0 (index_checks; the caller raises
//     take_index_error from them). `par` runs chunk(ctx, i) for i in
//     [0, chunks), on Kiln's thread pool (runtime/threadpool.h).
//   * The plan changes only where and when values are computed, never the
//     arithmetic: a fused run or a paired sum performs, for every element, the
//     same IEEE operations in the same order as separate loops would.
//   * Scheduling and emission agree on the rank-2 transpose's band
//     (kTransposeBand): a sum rides in a transpose's full bands only.
#pragma once
#include <cstdint>
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
  // Per Take or ScatterAdd node, in node order: where its index status lives.
  struct IndexCheck {
    int32_t node;
    int64_t offset;  // in scratch: [flag, first bad index]
  };
  std::vector<IndexCheck> index_checks;
  int64_t scratch_doubles = 0;
  int num_params = 0;
};

// Decides where each node's value lives: a parameter is read in place from its
// argument, a scalar constant is a literal, a tensor constant is an argument
// after the parameters, a computed output node writes straight into its first
// result, and every other node the kernel stores gets a 64-byte aligned
// scratch buffer, which it shares with nodes whose values are dead before it
// is computed or computed after its last reader (in the units of
// kernel_units.h, emitted in order); then each Take and ScatterAdd node gets
// its index status. Nodes that are never stored (run values kept in registers,
// transposes read in place) have offset 0 and are never written.
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

// Rows of a rank-2 transpose's output written together (the emitter's transpose2).
constexpr int64_t kTransposeBand = 8;

// Iterations of a rank-2 transpose's banded loop that can carry a sum: one per
// copied column of every full band.
int64_t transpose_band_iterations(const GraphNode &t);

// Per node: a rank-2 transpose used only as the LEFT operand of matmuls (not as
// both operands of one) whose input has a buffer (is not a scalar constant).
// Those matmuls read the transpose's input in place, so it is never
// materialised.
std::vector<bool> left_operand_transposes(const Graph &g);

}  // namespace kiln

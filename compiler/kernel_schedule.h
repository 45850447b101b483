// kernel_schedule.h — the order in which a kernel computes its nodes, before
// any buffer is placed: emission steps (fused element-wise runs, paired sums,
// sums riding in a transpose) and the transposes read in place. kernel_units.h
// groups the steps into units; kernel_plan.h places the values and keeps both.
//
// Invariant: every reordering keeps every operand before its readers (the graph
// is optimised: index order is a valid schedule), and changes only when values
// are computed, never the arithmetic (kernel_plan.h).
#pragma once
#include <cstdint>
#include <vector>

#include "compiler/graph.h"

namespace kiln {

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

// Per node: a rank-2 transpose used only as the left operand of rank-2 matmuls,
// or only as the right operand with at most kMaxPackedInner rows (not as both
// operands of one), whose input has a buffer (is not a scalar constant). Those
// matmuls read the transpose's input in place, so it is never materialised
// (a right one: `g W^T` of a backward pass, docs/performance.md).
constexpr int64_t kMaxPackedInner = 1024;
std::vector<bool> operand_transposes(const Graph &g);

}  // namespace kiln

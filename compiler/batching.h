// batching.h — vmap's batching rules: one per graph op (docs/graph.md, "vmap").
//
// Invariants the rules rely on and keep:
//   * A batched value holds the batch at axis 0 and each example's value behind it
//     (shape [B, per-example shape...]); an unbatched value is the per-example value
//     itself, the same for every example, and is broadcast only where an op needs it.
//   * A rule computes every example's entries with the same kernel (runtime/tensor_ops.h)
//     and the same order of additions as the per-example node: a whole-tensor sum
//     becomes a per-row SumAxis (k_sum's chain and sum_axis' chain both start at 0.0
//     and add in row-major order), the batch axis always lands in a kernel's `outer`
//     extent or in a matmul's rows or batch items, never inside a chain. So vmap equals
//     map over the slices bit for bit.
//   * No rule unrolls over the batch: the batched graph has as many nodes for any B.
#pragma once
#include <cstdint>

#include "compiler/graph.h"

namespace kiln {

// An operand of a node being batched: its node in the graph being built, and
// whether it carries the batch at axis 0.
struct BatchOperand {
  int32_t node;
  bool batched;
};

// Records into `g` the batched form of the per-example node `n` (its operands'
// per-example indices are not used), given its operands `in` (op_arity(n.op)
// entries, at least one batched) and the batch size. Returns a batched node of
// shape [batch, n.shape...]. Raises `vmap: ...` where an op cannot be batched
// (a random node drawn from a mapped key; a value past kMaxRank axes).
int32_t batch_node(Graph &g, const GraphNode &n, const BatchOperand *in, int64_t batch);

// [batch, s...], a batched value's shape; raises `vmap: ...` when that passes
// kMaxRank axes.
Shape batched_shape(int64_t batch, const Shape &s);

// An unbatched node repeated along a new axis 0 of length `batch`.
int32_t broadcast_batch(Graph &g, int32_t x, int64_t batch);

// x with its axis `from` moved to position `to` (the others keep their order).
int32_t move_axis(Graph &g, int32_t x, int from, int to);

}  // namespace kiln

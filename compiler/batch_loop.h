// batch_loop.h — vmap's batching rule for the Loop node (SPEC §15, docs/graph.md
// "vmap"): the loop's body graph is batched once, so a mapped fori-loop, scan or
// while-loop stays one loop whose steps work on the whole batch.
//
// Invariants:
//   * A carry leaf is batched when its INIT leaf is, or when a step makes it so
//     (found by iterating the body's dependencies to a fixed point); an XS leaf or
//     a captured value is batched when it depends on a mapped input. Unbatched
//     leaves stay per-example values (not broadcast), so a captured weight matrix
//     is read once per step, not once per example.
//   * Every node of the body is batched by batch_node's rule (batching.h), which
//     keeps each example's bits; so the batched loop equals `map` of the loop over
//     the slices bit for bit.
//   * A while-loop whose COND depends on a mapped value runs until every example's
//     COND is false; an example whose COND is false keeps its carry (a select per
//     step, as JAX does): the body still runs on it, and its results are dropped.
//   * The batched node's result is the per-example node's packed result with the
//     batch at axis 0 ([batch, result size]), so the tracer's slices of it batch
//     by the Slice rule.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/batching.h"
#include "compiler/graph.h"

namespace kiln {

// What the batching pass knows about the per-example graph: where a node's
// batched form is, and (when it was batched node by node) the per-example node
// itself, so the rule can see through the packing of a loop's operands (a
// Concat of Reshapes and Slices) to each leaf and keep unbatched leaves so.
class BatchedView {
 public:
  virtual ~BatchedView() = default;
  // The per-example node `o`, or nullptr when there is none to look through.
  virtual const GraphNode *example_node(int32_t o) const = 0;
  // Its batched form in the graph being built.
  virtual BatchOperand batched(int32_t o) const = 0;

  // Bodies batched so far in this pass, so that two loops running one body on the
  // same batched leaves (autodiff's forward loop and the value's, loop.h) share the
  // batched body, and the optimiser still finds them twins (optimise.cpp).
  struct BatchedBody {
    const Graph *body, *cond;  // the per-example ones (alive while the pass runs)
    std::vector<char> params;  // which params are batched
    int64_t batch;
    std::shared_ptr<Graph> new_body, new_cond;
    std::vector<char> ys;  // which Y leaves are batched
  };
  mutable std::vector<BatchedBody> bodies;
};

// Records into `g` the batched form of the per-example Loop node `n`, whose
// operand indices are per-example nodes `view` resolves; returns a batched node
// of shape [batch, n.shape...].
int32_t batch_loop(Graph &g, const GraphNode &n, const BatchedView &view, int64_t batch);

}  // namespace kiln

// optimise.h — the passes run after recording (docs/graph.md): constant folding with
// bit-preserving simplifications, then dead-node removal and dense renumbering.
//
// Invariant: no pass changes a single bit of any output. Folding computes a
// constant with the same kernel the interpreter would use (eval_node), and the
// only algebraic rewrites are exact ones (x*1 -> x, x/1 -> x, -(-x) -> x, a
// select on a constant mask, stop-gradient(x) -> x), applied only when the shape
// and number-ness of the result are those of the kept operand.
// Graphs are optimised only after every gradient in them has been recorded
// (graph_build.cpp; a nested gradient records into the trace before it), which
// is what lets stop-gradient go: its only meaning is to autodiff.
#pragma once
#include <memory>

#include "compiler/graph.h"

namespace kiln {

// Returns the optimised copy of `g`: folded and simplified, every node reachable
// from an output, params first in argument order (all of them, used or not),
// then the other nodes in the order they were first recorded.
std::unique_ptr<Graph> optimise(const Graph &g);
// The same into `out` (cleared first; must not be `g`).
void optimise_into(const Graph &g, Graph &out);

}  // namespace kiln

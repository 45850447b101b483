// autodiff.h — reverse-mode differentiation as graph rewriting (docs/graph.md).
//
// Invariant: the gradient of every primitive is given by one rule in
// autodiff.cpp that records ordinary graph nodes into the same Graph (so the
// backward pass is hash-consed with the forward pass, then optimised and
// interpreted or compiled exactly like it). A rule's contribution to an operand
// always has that operand's shape: broadcasting is undone with SumTo.
#pragma once
#include <vector>

#include "compiler/graph.h"

namespace kiln {

// Appends to `g` the nodes computing d(loss)/d(param k) for every param k of g
// (loss must be rank 0) and returns their indices, one per param in order. An
// argument the loss does not depend on gets zeros of its shape.
std::vector<int32_t> append_gradients(Graph &g, int32_t loss);
// The same for any nodes of g: d(loss)/d(wrt[j]) for each j, the wrt nodes
// being treated as inputs (what they are computed from gets no adjoint through
// them unless it is itself in wrt).
std::vector<int32_t> append_gradients(Graph &g, int32_t loss, const std::vector<int32_t> &wrt);
// The vector-Jacobian product: d(sum_k <outputs[k], seeds[k]>)/d(wrt[j]), each
// seed a node shaped like its output (append_gradients is it with the loss and
// the seed 1.0).
std::vector<int32_t> append_vjp(Graph &g, const std::vector<int32_t> &outputs,
                                const std::vector<int32_t> &seeds, const std::vector<int32_t> &wrt);

}  // namespace kiln

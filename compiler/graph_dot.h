// graph_dot.h — Graphviz rendering of a graph (docs/graph.md graph-dot).
//
// Invariant: the text depends only on the graph (node order, ops, attributes,
// shapes, outputs), never on addresses, so it can be golden-tested.
#pragma once
#include <string>

#include "compiler/graph.h"

namespace kiln {

std::string graph_to_dot(const Graph &g);

}  // namespace kiln

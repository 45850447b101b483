// trace.h — recording a graph by calling a Lisp procedure on symbolic values.
//
// Invariant: at most one trace is active at a time (traces do not nest), and a
// symbolic value is only meaningful while the trace that made it is active:
// each carries its trace's id, and using it after that trace ended raises an
// error instead of touching a freed Graph.
#pragma once
#include "graph.h"

namespace kiln {

// Installs the graph module's hooks (the
// symbolic value type and its hooks, the tensor builtins' symbolic entry). Idempotent.
void install_graph_hooks();

// Records F called on one symbolic value per spec into `g` and returns the
// node of F's result (a number or tensor result becomes a Const node). Raises
// `WHO: the traced function must return a number or a tensor, got V`.
int32_t trace_into(Graph &g, const char *who, Value f, int argc, const ArgSpec *args);

// True while a trace is running.
bool tracing_active();

}  // namespace kiln

// trace.h — recording a graph by calling a Lisp procedure on symbolic values.
//
// Invariant: at most one trace is active at a time (traces do not nest), and a
// symbolic value is only meaningful while the trace that made it is active:
// each carries its trace's id, and using it after that trace ended raises an
// error instead of touching a freed Graph.
#pragma once
#include <vector>

#include "compiler/graph.h"
#include "compiler/tree.h"

namespace kiln {

// Installs the graph module's hooks (the
// symbolic value type and its hooks, the tensor builtins' symbolic entry). Idempotent.
void install_graph_hooks();

// Records F called on symbolic argument trees shaped like `layout` (leaf k of
// the flattened arguments is param k, with specs[k]) into `g`. Stores the nodes
// of F's result's leaves in `out_nodes` (a number or tensor leaf becomes a Const
// node) and returns the result's skeleton (tree.h). With `with_aux`, F returns
// (LOSS . AUX): out_nodes is LOSS's node, then AUX's leaves, and the skeleton is
// AUX's. Raises `WHO: the traced function must return a number, a tensor or a
// tree of them, got V`.
Value trace_into(Graph &g, const char *who, Value f, const TreeLayout &layout, const ArgSpec *specs,
                 bool with_aux, std::vector<int32_t> &out_nodes);

// graph-grad (or a grad procedure) called inside a traced function: records F's
// forward and backward nodes into the active trace at the point `args` (trees
// whose leaves are symbolic values, numbers or tensors, laid out by `layout`,
// which says which arguments get gradients and whether F returns (LOSS . AUX)).
// Returns (LOSS [AUX] G...) of symbolic values. F's arguments are fresh inputs
// while it is differentiated, so what F captures from the enclosing trace is a
// constant to this gradient, as in JAX; then they are replaced by the actual
// nodes, and hash-consing shares F's forward nodes with the enclosing trace's.
Value trace_nested_grad(const char *who, Value f, TreeLayout &layout, const Value *args);

// vmap called with arguments of the active trace (or by the eager vmap's own
// trace): traces F once on stand-ins for one example's slices of the mapped
// leaves (leaf_axes[k]: leaf k's batch axis, or -1 for an unmapped leaf, which F
// receives as it is), then re-records what F recorded through the batching rules
// (batching.h), and returns F's result with every leaf stacked along `out_axis`
// (negative counts from the end), as symbolic values. The caller checked the
// axes and that every mapped axis has length `batch`.
Value trace_nested_vmap(Value f, const TreeLayout &layout, const Value *args, const int *leaf_axes,
                        int64_t batch, int out_axis);

// The same for flat arguments (one spec each) and a result that is one leaf:
// returns its node (tests and tools that record a single-output graph).
int32_t trace_into(Graph &g, const char *who, Value f, int argc, const ArgSpec *args);

// For recording Loop nodes (loop_trace.cpp): the active graph, the node of an
// operand (a symbolic value, number or tensor), a symbolic value for a node, a
// fresh stand-in param (a nested function's argument, replaced when it ends),
// and a nested recording scope (values made inside are unusable after it).
Graph &traced_graph(const char *who);
int32_t traced_node(const char *who, Value v);
Value traced_value(int32_t node);
int32_t new_stand_in(Graph &g, const Shape &s, bool is_number);
bool is_stand_in_node(const GraphNode &n);
void enter_recording_scope(const char *who);
void leave_recording_scope();

// Is `v` a symbolic value (of any trace)?
bool is_symbolic_value(Value v);
// When `v` is a symbolic value, stores its shape in `s` and whether it stands for
// a number (rather than a tensor) in `number`, and returns true.
bool symbolic_shape(Value v, Shape &s, bool &number);

// True while a trace is running.
bool tracing_active();

// mpi-allreduce inside a traced function: records an Allreduce node (graph.h) of
// `leaf` (a symbolic value of the active trace, a number or a tensor) and returns
// the symbolic value standing for its result.
Value record_allreduce(const char *who, Value leaf, int kind, uint64_t signature);

}  // namespace kiln

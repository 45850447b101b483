// graph_build.h — the pipeline from a Lisp procedure to an optimised graph:
// trace (trace.h), differentiate (autodiff.h), optimise (optimise.h).
//
// Invariant: a built graph has its params first, numbered as the arguments,
// and its outputs in the order below; nothing in it refers to the scratch graph
// the trace recorded into, which the next build reuses.
#pragma once
#include <memory>
#include <vector>

#include "compiler/graph.h"
#include "compiler/tree.h"

namespace kiln {

// Traces F on symbolic arguments shaped like `args`; outputs = {F's result};
// then constant folding and dead-node removal. `who` names the builtin in errors.
std::unique_ptr<Graph> build_forward_graph(const char *who, Value f, int argc, const ArgSpec *args);
// The forward + backward graph: outputs = {loss, dloss/darg1, ..., dloss/dargN},
// the loss as a number, each gradient with its argument's shape (a number for a
// number argument). Optimised as a whole (CSE across forward and backward,
// folding, dead-node removal). Raises `WHO: the loss must be a scalar, got a 8x8 tensor`.
std::unique_ptr<Graph> build_grad_graph(const char *who, Value f, int argc, const ArgSpec *args);

// The same two, built into `out` (cleared first, its memory reused): for callers
// that keep one scratch graph per thread and use it before the next build.
void build_forward_graph_into(Graph &out, const char *who, Value f, int argc, const ArgSpec *args);
void build_grad_graph_into(Graph &out, const char *who, Value f, int argc, const ArgSpec *args);

// The general build, for arguments that are trees (tree.h) laid out by `layout`
// (specs: one per leaf). Forward (layout.grad false): outputs = the leaves of F's
// result. Grad: outputs = LOSS, then AUX's leaves (layout.with_aux), then the
// gradient leaves of each argument in layout.wrt. Sets layout.out_skeleton to
// the result's (or AUX's) skeleton. The four functions above are this one with a
// flat layout.
void build_graph_into(Graph &out, const char *who, Value f, TreeLayout &layout, const ArgSpec *specs);

// The leaves of `args` laid out by `layout` (a GC array, layout.nleaves()
// entries: the graph's params in order), with each leaf's ArgSpec in `specs`.
Value *argument_leaves(const char *who, const TreeLayout &layout, const Value *args,
                       std::vector<ArgSpec> &specs);

// The ArgSpec of an example argument (a number or a tensor); raises
// `WHO: argument POS must be a number or a tensor, got V` otherwise.
ArgSpec arg_spec_of(const char *who, int pos, Value v);

}  // namespace kiln

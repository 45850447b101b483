// graph_eval.h — the graph interpreter (docs/graph.md graph-eval / graph-grad).
//
// Invariant: every node is computed by eval_node(), which is exactly one call
// into runtime/tensor_ops.h per op (the table in graph.h), so the interpreter, the
// eager builtins and constant folding give the same bits. Intermediate buffers
// come from a pool and go back to it after their last use, so an evaluation
// reuses memory; outputs are written straight into fresh Lisp tensors.
#pragma once
#include "compiler/graph.h"

namespace kiln {

// Computes node `n` of `g` from its operands' element buffers `in[0..arity)`
// (laid out in the operands' shapes) into `out` (n.shape.size() doubles).
// Param and Const nodes are not computed here. Returns false, with `out`
// unspecified, when a Take or ScatterAdd meets an index that is not an integer
// in range (index_fault then says which) or a Random node's key is not an
// integer (random_key_error); callers raise only after putting their own state
// back, since a handler may run Lisp code that evaluates graphs.
bool eval_node(const Graph &g, const GraphNode &n, const double *const *in, double *out);

// The first bad index of Take or ScatterAdd node `n`, whose index operand's
// elements are `idx`, as take_index_error (runtime/tensor_shapes.h) reports it.
struct IndexFault {
  IndexUse use;
  double index;
  int axis;
  int64_t len;
};
IndexFault index_fault(const Graph &g, const GraphNode &n, const double *idx);
// The length of the axis a Take or ScatterAdd node's indices point into.
int64_t indexed_length(const Graph &g, const GraphNode &n);

// Evaluates `g` on `args` (one Lisp number or tensor per param, with the params'
// shapes; callers check with check_args) and stores one Lisp value per output
// in `results` (g.outputs.size() entries).
void graph_eval(const Graph &g, const Value *args, Value *results);

}  // namespace kiln

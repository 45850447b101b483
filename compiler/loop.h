// loop.h — the Loop node (SPEC §15): fori-loop, scan and while-loop traced once
// into a body graph, run by the interpreter and differentiated (docs/graph.md,
// "Control flow").
//
// Invariants:
//   * A body graph's params are, in order: param 0 the step index (a number),
//     then the carry leaves, then the leaves of one step's XS slice (scan), then
//     the captured values. Its outputs are the new carry leaves, then one step's
//     Y leaves (scan). A while-loop's `cond` graph has the same params and one
//     output, nonzero to go on.
//   * A Loop node's operands are packed flat: in[0] the carry leaves one after
//     the other (row-major each), in[1] the captured values, then each XS leaf
//     whole (all steps). Its result is the final carry leaves, then each Y leaf
//     stacked over the steps, then (save_carries) each carry leaf as it was
//     before each step, stacked. Packing lets the node keep two operands, so
//     every pass that walks operands handles it unchanged; the tracer takes the
//     user's leaves out again with Slice and Reshape nodes.
//   * A LoopBody never changes once a node points at it; graphs share it
//     (shared_ptr), so copying nodes between graphs keeps it alive
//     (Graph::keep_loop).
#pragma once
#include <memory>
#include <vector>

#include "compiler/graph.h"

namespace kiln {

enum class LoopKind : uint8_t { Fori, Scan, While };
const char *loop_kind_name(LoopKind k);  // "fori-loop", "scan", "while-loop"

struct LeafSpec {
  Shape shape;
  bool is_number = false;
};

struct LoopBody : std::enable_shared_from_this<LoopBody> {
  LoopKind kind = LoopKind::Fori;
  int64_t trips = 0;          // Fori: N; Scan: XS's length; While: unknown (-1)
  bool reverse = false;       // steps trips-1 down to 0 (a scan's backward pass)
  bool save_carries = false;  // also returns each step's incoming carry (for the backward pass)
  std::vector<LeafSpec> carry, xs, ys, captures;  // xs and ys: one step's slice
  std::shared_ptr<Graph> body, cond;

  int64_t carry_size() const;    // doubles in the packed carry
  int64_t capture_size() const;  // doubles of captured values at the start of in[1]
  int64_t xs_size() const;       // doubles of all steps' XS after them
  int64_t ys_size() const;       // doubles of all steps' Ys in the result
  int64_t result_size() const;   // the Loop node's result
};

// Runs the loop on packed operands into `out` (body.result_size() doubles).
// Returns false when a node of the body fails (a bad index or random key):
// raise_loop_fault() then raises that node's error; the caller gives its own
// buffers back first.
bool run_loop(const LoopBody &loop, const double *carry, const double *consts, double *out);
[[noreturn]] void raise_loop_fault();

// Autodiff of Loop node `i` of `g` (adjoint `adj`): records the forward loop
// again saving its carries and a reverse scan of the body's vector-Jacobian
// product; stores the adjoints of in[0] and in[1] (-1 where not needed).
// A while-loop raises `graph-grad: cannot differentiate through while-loop ...`.
void record_loop_gradient(Graph &g, int32_t i, int32_t adj, bool need_carry, bool need_consts,
                          int32_t &carry_adj, int32_t &consts_adj);

// The canonical text of a loop's body (graph_text.h's key covers the body).
std::string loop_canonical_text(const LoopBody &loop);

}  // namespace kiln

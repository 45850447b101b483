// kernel_plan.h — the plan of a compiled kernel, decided before any code is
// emitted: where each node's value lives and the order (and grouping into
// loops) in which emit_kernel (codegen.h) computes the nodes. Plain data over a
// Graph; nothing here knows libgccjit.
//
// Invariants:
//   * The graph is optimised (graph.h): operands precede their readers, so
//     index order is a valid schedule and every reordering below keeps every
//     operand before its readers.
//   * Generated signature (kKernelFunction):
//       void kiln_kernel(double **args, double **results, double *scratch,
//                        void (*par)(long chunks, void (*chunk)(void *, long), void *ctx))
//     args[0..P) are the parameters' data read in place (a number argument is a
//     pointer to one double), args[P..P+C) the graph's tensor constants;
//     results[o] receives output o (a number output: one double); scratch holds
//     every intermediate at an offset fixed by plan_kernel (64-byte aligned),
//     allocated once per kernel by the caller; it also holds, per Take or
//     ScatterAdd node, two doubles the kernel writes on every call: 1.0 and the
//     first bad index when an index was not an integer in range (the kernel
//     then read entry 0 instead), else 0.0 (index_checks; the caller raises
//     take_index_error from them); likewise per Random node, 1.0 and the key
//     when the key was not an integer (random_key_error). `par` runs chunk(ctx, i) for i in
//     [0, chunks), on Kiln's thread pool (runtime/threadpool.h).
//   * The plan changes only where and when values are computed, never the
//     arithmetic: a fused run or a paired sum performs, for every element, the
//     same IEEE operations in the same order as separate loops would.
//   * Scheduling and emission agree on the rank-2 transpose's band
//     (kTransposeBand): a sum rides in a transpose's full bands only.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/graph.h"
#include "compiler/kernel_units.h"

namespace kiln {

constexpr const char *kKernelFunction = "kiln_kernel";
using KernelParFn = void (*)(long chunks, void (*chunk)(void *, long), void *ctx);

struct KernelLayout {
  enum class Place : uint8_t { Arg, ConstScalar, ConstTensor, Scratch, Result };
  struct Slot {
    Place place = Place::Scratch;
    int32_t index = 0;   // Arg: argument number; ConstTensor: args index; Result: output number
    int64_t offset = 0;  // Scratch: offset in doubles
  };
  std::vector<Slot> slots;           // one per node
  std::vector<int32_t> const_nodes;  // tensor Const nodes, passed after the parameters
  // Per Take, ScatterAdd or Random node, in node order: where its status lives.
  struct IndexCheck {
    int32_t node;
    int64_t offset;                // in scratch: [flag, first bad index]
    const Graph *graph = nullptr;  // the node's graph: null for the kernel's own, else a loop body's
  };
  std::vector<IndexCheck> index_checks;
  int64_t scratch_doubles = 0;
  int num_params = 0;
  // The schedule, computed once here and followed by emit_kernel: per node,
  // whether it is a transpose its matmuls read in place (operand_transposes),
  // and the units of emission (kernel_units) of the emission order.
  std::vector<bool> read_in_place;
  std::vector<KernelUnit> units;
  // Loop nodes (loop.h), lowered as a native loop calling the body's own
  // function (its plan below) once per step; see LoopPlan.
  struct LoopPlan;
  std::vector<LoopPlan> loops;
  // The tensor constants of the loop bodies (and of their nested loops), in
  // loops' order: args[P + const_nodes.size() + j].
  std::vector<const double *> loop_consts;
};

// The plan of one Loop node. Its private scratch (never shared) holds the two
// carry buffers a step reads and writes in turn, a copy of in[1] when that is
// a scalar literal, and the body's (and a while-loop cond's) own scratch. The
// body's index checks are lifted into the kernel's list (check_first ...,
// body's then cond's, each naming its graph): after a step whose body (or
// cond) flagged one, the loop copies every lifted status and stops, so the
// caller raises the first failing node of the first failing step, as
// run_loop does.
struct KernelLayout::LoopPlan {
  int32_t node = -1;
  std::shared_ptr<KernelLayout> body, cond;
  int64_t carries = 0;       // two buffers of carry_size() rounded up to 8 doubles each
  int64_t consts_copy = 0;   // a copy of in[1] when it is a scalar literal (no buffer)
  int64_t body_scratch = 0;  // the body's scratch area
  int64_t cond_scratch = 0;
  int32_t body_consts = 0;  // args index of the body's constants (then its loop_consts)
  int32_t cond_consts = 0;
  size_t check_first = 0;  // the body's lifted checks, then cond's, in index_checks
};

// Decides where each node's value lives: a parameter is read in place from its
// argument, a scalar constant is a literal, a tensor constant is an argument
// after the parameters, a computed output node writes straight into its first
// result, and every other node the kernel stores gets a 64-byte aligned
// scratch buffer, which it shares with nodes whose values are dead before it
// is computed or computed after its last reader (in the units of
// kernel_units.h, emitted in order); then each Take and ScatterAdd node gets
// its index status. Nodes that are never stored (run values kept in registers,
// transposes read in place) have offset 0 and are never written.
KernelLayout plan_kernel(const Graph &g);

}  // namespace kiln

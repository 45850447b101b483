// graph.h — the traced graph IR (docs/graph.md): nodes, shapes, and the entry points
// that turn a Lisp procedure into an optimised forward (+ backward) graph.
//
// Invariants the interpreter, autodiff and the JIT rely on:
//   * A Graph is a list of Nodes in topological order: every operand index of
//     node i is < i. After optimise() the Param nodes come first, in argument
//     order (node k is param k), and every node is reachable from an output.
//   * Every node has a fully inferred Shape (rank 0..kMaxRank, every dim >= 1).
//     Binary ops and Select broadcast their operands (NumPy rules) to the node's
//     shape; every other op's operand shapes are exactly what its row below says.
//   * Nodes are hash-consed while recording: there are never two nodes with the
//     same op, attributes and operands (common subexpressions are shared).
//   * The numeric meaning of every op is ONE call into runtime/tensor_ops.h (named
//     per op below), so the interpreter (graph_eval.h), the eager builtins and a
//     JIT that reproduces those kernels' loops give the same bits.
//   * Const tensors are immutable Lisp tensors kept alive by the Graph (an
//     uncollectable root array), so `const_data` stays valid as long as the Graph.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/random_keys.h"
#include "runtime/tensor_ops.h"
#include "runtime/tensor_shapes.h"
#include "runtime/value.h"

namespace kiln {

// Op            operands        result shape          kernel (runtime/tensor_ops.h)
// ------------- --------------- --------------------- -----------------------------------
// Param         -               the argument's        (read in place)
// Const         -               scalar or tensor      (scalar value / tensor data)
// Add..Equal    a b             broadcast(a, b)       k_binary(BinaryOp of op_binary(op))
//   (Less..Equal give 1.0 / 0.0: masks for Select)
// Neg..ReluGrad x               x                     k_unary(UnaryOp of op_unary(op))
// Select        cond a b        broadcast(c, a, b)    k_select (cond != 0 ? a : b)
// Sum/Mean/Max  x               rank 0                k_sum / k_mean / k_max
// SumAxis..     x               x without `axis`      k_sum_axis / k_mean_axis /
//   (MeanAxis, MaxAxis)          (or 1 if keepdims)    k_max_axis (same layout either way)
// SumTo         g               `shape` (broadcasts   k_sum_to
//                               to g's shape)
// BroadcastTo   x               `shape` (x broadcasts k_binary(Mul, x, 1.0): x*1.0 is x
//                               to it)                 bit for bit, NaN included
// Matmul        a(.. m x k)     .. x m x n            k_matmul_batched: one k_matmul per
//               b(.. k x n)                            item of the batch axes `..`, which
//                                                      a and b share (the tracer reshapes
//                                                      rank-1 operands and broadcasts)
// Transpose     x               x.dim[perm[i]]        k_transpose(perm)
// Reshape       x               `shape` (same size)   plain copy of the elements
// MaxMask       x               x                     1.0 at the first maximal element
//   (axis = -1: whole tensor, k_argmax; else per     (or first NaN), 0.0 elsewhere; no
//    line along `axis`, first maximal/NaN index)      arithmetic, only comparisons
// Slice         x               `shape` (x's, smaller  k_copy_along: entries [offset,
//                               along `axis`)          offset + len) of x along `axis`
// Pad           x               `shape` (x's, larger   0.0, and x copied to entries
//                               along `axis`)          [offset, ...) (Slice's gradient)
// Concat        a b             a's, with a.dim+b.dim  k_copy_along twice: a, then b
//                               along `axis`           (n tensors: a chain of Concats)
// Argmax        x               x without `axis`      k_argmax_axis (indices as doubles;
//                                                      no gradient)
// Take          x idx           take_shape(x, idx,    k_take: entries idx of x along `axis`;
//                               axis)                  every index checked (k_bad_index)
// ScatterAdd    g idx           `shape` (Take's x)    k_scatter_add: Take's gradient
// Random        key (rank 0)    `shape`               k_random(kind = RandomKind(axis)):
//                                                      element i a function of the key
//                                                      and i only (runtime/random_keys.h);
//                                                      a key that is not an integer fails
//                                                      the node (no gradient)
// Allreduce     x               x                     compiler/collective.h: the element-wise
//   (axis: the reduction, 0 sum 1 mean 2 max;        sum/mean/max of x over every process, in
//    offset: the leaf's signature, checked equal     rank order; an exchange, so never folded
//    on every process before data moves)             and never hash-consed across leaves
// Loop          carry consts     rank 1: final carry   compiler/loop.h: fori-loop, scan or
//               (both rank 1)    leaves, then stacked  while-loop running `loop`'s body graph
//                                Ys (packed, flat)     (carry and consts are leaves packed flat)
// StopGradient (element-wise) is x itself; autodiff sends nothing through it.
// Op, OpInfo and op_info, the case ranges and the conversions between Op and
// UnaryOp / BinaryOp are in runtime/op_table.h, generated from its rows.

// (Named GraphNode, not Node: kiln::Node is the evaluator's AST node, runtime/nodes.h.)
struct LoopBody;  // compiler/loop.h

struct GraphNode {
  Op op = Op::Const;
  // Lisp sees a rank-0 result as a number rather than a rank-0 tensor (numbers in,
  // number out; tensor-sum/mean/max; matmul of two vectors). Only output conversion
  // reads it, but it is part of a node's identity.
  bool is_number = false;
  bool keepdims = false;  // SumAxis/MeanAxis/MaxAxis
  // SumAxis/MeanAxis/MaxAxis/MaxMask (-1: whole tensor)/Slice/Pad/Concat/Argmax/Take/ScatterAdd;
  // Random: its RandomKind (runtime/random_keys.h)
  int8_t axis = -1;
  IndexUse index_use = IndexUse::Take;  // Take/ScatterAdd: what a bad index's error names
  int64_t offset = 0;                   // Slice/Pad: where along `axis` the smaller tensor's entries start
  int32_t in[3] = {-1, -1, -1};
  int32_t param_index = -1;    // Param: argument position
  int8_t perm[kMaxRank] = {};  // Transpose: out.dim[i] = in.dim[perm[i]]
  Shape shape;                 // the result's shape (also SumTo/BroadcastTo/Reshape's target)
  // Const: a scalar constant has const_data == nullptr and its value in `scalar`;
  // a tensor constant points at the (immutable, Graph-rooted) data of `shape`.
  double scalar = 0.0;
  const double *const_data = nullptr;
  // Loop: what the loop runs; every Graph holding the node keeps it alive.
  const LoopBody *loop = nullptr;

  int64_t size() const { return shape.size(); }
  double const_at(int64_t i) const { return const_data ? const_data[i] : scalar; }
};

// What an argument looks like to the tracer: its shape, and whether Lisp passes
// a number (rank 0, number semantics) or a tensor.
struct ArgSpec {
  Shape shape;
  bool is_number = true;
};

struct GraphOutput {
  int32_t node;
  bool as_number;  // convert a rank-0 result to a Lisp number
};

class Graph {
 public:
  Graph();
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  std::vector<GraphNode> nodes;
  std::vector<GraphOutput> outputs;
  int num_params = 0;

  // ---- recording (hash-consed; returns the index of an existing identical node
  // when there is one). Shapes are checked; a mismatch raises the Lisp error
  // `WHO: shapes 2x3 and 4x3 do not broadcast` etc. naming `who`.
  int32_t param(int index, const ArgSpec &spec);
  int32_t constant(double x, bool is_number = true);
  int32_t constant_tensor(Value tensor);  // keeps the tensor alive
  int32_t binary(const char *who, Op op, int32_t a, int32_t b);
  int32_t unary(Op op, int32_t x);
  int32_t select(const char *who, int32_t cond, int32_t a, int32_t b);
  int32_t reduce_all(Op op, int32_t x);                            // Sum/Mean/Max
  int32_t reduce_axis(Op op, int32_t x, int axis, bool keepdims);  // SumAxis/...
  int32_t sum_to(int32_t g, const Shape &target);                  // identity when shapes agree
  int32_t broadcast_to(int32_t x, const Shape &target);            // identity when shapes agree
  int32_t matmul(const char *who, int32_t a, int32_t b);           // same rank >= 2, same batch axes
  int32_t transpose(int32_t x, const int *perm);
  int32_t reshape(int32_t x, const Shape &s, bool is_number = false);  // identity when same
  int32_t max_mask(int32_t x, int axis);
  int32_t slice(int32_t x, int axis, int64_t start, int64_t len);  // identity for the whole axis
  int32_t pad(int32_t x, int axis, int64_t start, const Shape &target);
  int32_t concat(int32_t a, int32_t b, int axis);
  int32_t argmax(int32_t x, int axis);
  // A constant idx is checked here, so a bad index is reported while tracing,
  // as the eager call reports it.
  int32_t take(int32_t x, int32_t idx, int axis, IndexUse use = IndexUse::Take);
  int32_t scatter_add(int32_t g, int32_t idx, int axis, const Shape &target, IndexUse use = IndexUse::Take);
  // Numbers of `shape` drawn from the rank-0 `key` (RandomKind); a constant key
  // is checked here, so a bad one is reported while tracing, as eagerly.
  int32_t random(RandomKind kind, int32_t key, const Shape &shape);
  // kind: 0 sum, 1 mean, 2 max; signature: the leaf's (collective.h).
  int32_t allreduce(int32_t x, int kind, uint64_t signature);

  // Records a fully formed node (operands and shape already set), hash-consed:
  // for passes that rebuild a graph.
  int32_t record(GraphNode n) { return intern(n); }
  // Appends a node verbatim (no hash-consing, no checks): for passes that rebuild.
  int32_t add_node_raw(const GraphNode &n);
  // Keeps every constant tensor (and loop body) of `other` alive as long as
  // this graph too (a pass that copies nodes into a new graph calls it).
  void adopt_constants(const Graph &other);
  // Keeps a Loop node's body alive with this graph (recording a Loop node does it).
  void keep_loop(const LoopBody *body);
  // Rebuilds the hash-cons table from `nodes` (after a pass rewrote them; the
  // next recording call does it by itself when add_node_raw was used).
  void rehash();
  // Empties the graph but keeps its memory (scratch graphs reused per trace).
  void clear();
  // Drops nodes [n, size()) (a pass that re-records them; outputs must not
  // refer to them). Constant tensors stay rooted.
  void truncate(int32_t n);

  const GraphNode &operator[](int32_t i) const { return nodes[size_t(i)]; }
  int32_t size() const { return int32_t(nodes.size()); }

 private:
  int32_t intern(GraphNode &n);  // hash-consing
  std::vector<int32_t> slots_;   // open addressing over node indices, -1 = empty
  int32_t used_ = 0;
  bool table_valid_ = false;  // false: rebuild from `nodes` before the next lookup
  void root_constant(Value tensor);
  Value *const_roots_ = nullptr;  // uncollectable: keeps Const tensors alive
  std::vector<std::shared_ptr<const LoopBody>> loops_;
  int64_t const_roots_len_ = 0, const_roots_cap_ = 0;
};

}  // namespace kiln

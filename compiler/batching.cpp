// batching.cpp — the batching rule of every graph op (batching.h). The switch in
// batch_node has no `default:`, so -Wswitch names an op added without a rule.
#include "compiler/batching.h"

#include "compiler/batch_loop.h"
#include "runtime/error.h"
#include "runtime/tensor.h"

namespace kiln {
namespace {

constexpr const char *kWho = "vmap";

// The op table's BatchRule column says what batch_node does with each row.
constexpr bool rules_follow_the_table() {
  for (const UnaryOpRow &r : kUnaryOps)
    if (r.batching != BatchRule::Elementwise) return false;
  for (const BinaryOpRow &r : kBinaryOps)
    if (r.batching != BatchRule::Elementwise) return false;
  for (const StructuralOpRow &r : kStructuralOps)
    if (r.batching != BatchRule::Structural) return false;
  return true;
}
static_assert(rules_follow_the_table(),
              "batch_node batches element-wise rows alike and each structural row by its case");

// An operand's per-example shape.
Shape example_shape(const Graph &g, const BatchOperand &x) {
  Shape s = g[x.node].shape;
  if (!x.batched) return s;
  for (int i = 1; i < s.rank; i++) s.dim[i - 1] = s.dim[i];
  s.rank--;
  return s;
}

// For an op that broadcasts its operands to a result of per-example rank `rank`:
// a batched operand of lower per-example rank gets 1s after its batch axis, so
// NumPy's right alignment lines its batch axis up with the result's. An
// unbatched operand aligns by itself.
int32_t lift(Graph &g, const BatchOperand &x, int rank) {
  if (!x.batched) return x.node;
  Shape s = g[x.node].shape;
  if (s.rank == rank + 1) return x.node;
  Shape r;
  r.rank = rank + 1;
  r.dim[0] = s.dim[0];
  int pad = rank + 1 - s.rank;
  for (int i = 1; i <= pad; i++) r.dim[i] = 1;
  for (int i = 1; i < s.rank; i++) r.dim[pad + i] = s.dim[i];
  return g.reshape(x.node, r, false);
}

int32_t materialise(Graph &g, const BatchOperand &x, int64_t batch) {
  return x.batched ? x.node : broadcast_batch(g, x.node, batch);
}

// x (batched) viewed as [batch, everything else in one axis].
int32_t rows(Graph &g, int32_t x) {
  Shape s = g[x].shape;
  return g.reshape(x, Shape::of({s.dim[0], s.size() / s.dim[0]}), false);
}

// [a, b, c, d] -> [b, a, c, d]
int32_t swap_first_two_of_4(Graph &g, int32_t x) {
  static const int perm[4] = {1, 0, 2, 3};
  return g.transpose(x, perm);
}

// The per-example shape split around `axis` as [outer][len][inner].
void split(const Shape &s, int axis, int64_t &outer, int64_t &len, int64_t &inner) {
  axis_split(s, axis, outer, len, inner);
}

// The batched indices `idx` ([batch, I...], each example's indexing an axis of
// length `len`) as one flat list of indices into that axis repeated `batch` times
// (example b's entries shifted by b * len). Each index is first checked against
// `len` by a Take from `len` zeros, which reports a bad one as the per-example
// node would (adding its 0.0 leaves a valid index unchanged), so a shift never
// turns a bad index into a good one.
int32_t flat_indices(Graph &g, int32_t idx, int64_t batch, int64_t len, IndexUse use) {
  Tensor *zeros = alloc_tensor(Shape::of({len}));
  for (int64_t i = 0; i < len; i++) zeros->data[i] = 0.0;
  int32_t z = g.constant_tensor(from_ptr(zeros));
  int32_t checked = g.binary(kWho, Op::Add, idx, g.take(z, idx, 0, use));
  int32_t by_row = rows(g, checked);
  Tensor *shift = alloc_tensor(Shape::of({batch, 1}));
  for (int64_t b = 0; b < batch; b++) shift->data[b] = double(b) * double(len);
  int32_t shifted = g.binary(kWho, Op::Add, by_row, g.constant_tensor(from_ptr(shift)));
  return g.reshape(shifted, Shape::of({g[shifted].shape.size()}), false);
}

// Take with both x and the indices batched: example b's x is rows
// [b*len, (b+1)*len) of one long axis, and its indices are shifted to them.
int32_t take_both(Graph &g, const GraphNode &n, int32_t x, int32_t idx, int64_t batch) {
  int64_t outer, len, inner;
  split(example_shape(g, {x, true}), n.axis, outer, len, inner);
  int64_t count = g[idx].shape.size() / batch;
  int32_t flat = flat_indices(g, idx, batch, len, n.index_use);
  int32_t x4 = g.reshape(x, Shape::of({batch, outer, len, inner}), false);
  int32_t x3 = g.reshape(swap_first_two_of_4(g, x4), Shape::of({outer, batch * len, inner}), false);
  int32_t t = g.take(x3, flat, 1, n.index_use);
  int32_t t4 = swap_first_two_of_4(g, g.reshape(t, Shape::of({outer, batch, count, inner}), false));
  return g.reshape(t4, batched_shape(batch, n.shape), false);
}

// ScatterAdd with g and the indices batched: the same long axis. Output entry
// (b, k) receives example b's contributions in ascending index order, as the
// per-example node adds them.
int32_t scatter_both(Graph &g, const GraphNode &n, int32_t grad, int32_t idx, int64_t batch) {
  int64_t outer, len, inner;
  split(n.shape, n.axis, outer, len, inner);
  int64_t count = g[idx].shape.size() / batch;
  int32_t flat = flat_indices(g, idx, batch, len, n.index_use);
  int32_t g4 = g.reshape(grad, Shape::of({batch, outer, count, inner}), false);
  int32_t g3 = g.reshape(swap_first_two_of_4(g, g4), Shape::of({outer, batch * count, inner}), false);
  int32_t s = g.scatter_add(g3, flat, 1, Shape::of({outer, batch * len, inner}), n.index_use);
  int32_t s4 = swap_first_two_of_4(g, g.reshape(s, Shape::of({outer, batch, len, inner}), false));
  return g.reshape(s4, batched_shape(batch, n.shape), false);
}

// A Loop node's operands as batch_node gets them (nothing to look through).
class OperandView : public BatchedView {
 public:
  explicit OperandView(const BatchOperand *in) : in_(in) {}
  const GraphNode *example_node(int32_t) const override { return nullptr; }
  BatchOperand batched(int32_t o) const override { return in_[o]; }

 private:
  const BatchOperand *in_;
};

int32_t batch_matmul(Graph &g, const BatchOperand &a, const BatchOperand &b, int64_t batch) {
  if (a.batched && b.batched) return g.matmul(kWho, a.node, b.node);
  Shape as = example_shape(g, a);
  if (a.batched && as.rank == 2) {
    // Every example's rows stacked: one matmul whose row i is example i/m's row
    // i%m, each entry summed over k in the same order.
    Shape bs = g[b.node].shape;
    int32_t stacked = g.reshape(a.node, Shape::of({batch * as.dim[0], as.dim[1]}), false);
    int32_t c = g.matmul(kWho, stacked, b.node);
    return g.reshape(c, Shape::of({batch, as.dim[0], bs.dim[1]}), false);
  }
  return g.matmul(kWho, materialise(g, a, batch), materialise(g, b, batch));
}

}  // namespace

Shape batched_shape(int64_t batch, const Shape &s) {
  if (s.rank + 1 > kMaxRank)
    throw_errorf("vmap: a mapped value would have {} axes (tensors have at most {})", s.rank + 1, kMaxRank);
  Shape r;
  r.rank = s.rank + 1;
  r.dim[0] = batch;
  for (int i = 0; i < s.rank; i++) r.dim[i + 1] = s.dim[i];
  return r;
}

int32_t broadcast_batch(Graph &g, int32_t x, int64_t batch) {
  Shape s = g[x].shape;
  Shape one = batched_shape(1, s);
  return g.broadcast_to(g.reshape(x, one, false), batched_shape(batch, s));
}

int32_t move_axis(Graph &g, int32_t x, int from, int to) {
  int rank = g[x].shape.rank;
  int perm[kMaxRank];
  int k = 0;
  for (int i = 0; i < rank; i++)
    if (i != from) perm[k++] = i;
  for (int i = rank - 1; i > to; i--) perm[i] = perm[i - 1];
  perm[to] = from;
  return g.transpose(x, perm);
}

int32_t batch_node(Graph &g, const GraphNode &n, const BatchOperand *in, int64_t batch) {
  const Shape out = batched_shape(batch, n.shape);
  const int rank = n.shape.rank;
  switch (n.op) {
  case Op::Param:
  case Op::Const: break;  // no operands: never batched by a rule
#define KILN_X(e, ...) case Op::e:
    KILN_BINARY_ARITH_OPS(KILN_X)
    KILN_COMPARE_OPS(KILN_X)
#undef KILN_X
    return g.binary(kWho, n.op, lift(g, in[0], rank), lift(g, in[1], rank));
#define KILN_X(e, ...) case Op::e:
    KILN_UNARY_OPS(KILN_X)
#undef KILN_X
    return g.unary(n.op, in[0].node);
  case Op::Select: return g.select(kWho, lift(g, in[0], rank), lift(g, in[1], rank), lift(g, in[2], rank));
  case Op::Sum: return g.reduce_axis(Op::SumAxis, rows(g, in[0].node), 1, false);
  case Op::Mean: return g.reduce_axis(Op::MeanAxis, rows(g, in[0].node), 1, false);
  case Op::Max: return g.reduce_axis(Op::MaxAxis, rows(g, in[0].node), 1, false);
  case Op::SumAxis:
  case Op::MeanAxis:
  case Op::MaxAxis: return g.reduce_axis(n.op, in[0].node, n.axis + 1, n.keepdims);
  case Op::SumTo: {
    // Target [batch, 1..., T] at the gradient's rank, then [batch, T]. Recorded
    // directly: when the two shapes agree the node still adds each entry to 0.0,
    // as the per-example node does (it turns -0.0 into 0.0).
    Shape gs = g[in[0].node].shape;
    Shape target;
    target.rank = gs.rank;
    target.dim[0] = batch;
    int pad = gs.rank - 1 - rank;
    for (int i = 1; i <= pad; i++) target.dim[i] = 1;
    for (int i = 0; i < rank; i++) target.dim[1 + pad + i] = n.shape.dim[i];
    GraphNode s;
    s.op = Op::SumTo;
    s.in[0] = in[0].node;
    s.shape = target;
    return g.reshape(g.record(s), out, false);
  }
  case Op::BroadcastTo: return g.broadcast_to(lift(g, in[0], rank), out);
  case Op::Matmul: return batch_matmul(g, in[0], in[1], batch);
  case Op::Transpose: {
    int perm[kMaxRank];
    perm[0] = 0;
    for (int i = 0; i < rank; i++) perm[i + 1] = n.perm[i] + 1;
    return g.transpose(in[0].node, perm);
  }
  case Op::Reshape: return g.reshape(in[0].node, out, false);
  case Op::MaxMask:
    if (n.axis >= 0) return g.max_mask(in[0].node, n.axis + 1);
    return g.reshape(g.max_mask(rows(g, in[0].node), 1), out, false);
  case Op::Slice: return g.slice(in[0].node, n.axis + 1, n.offset, n.shape.dim[n.axis]);
  case Op::Pad: return g.pad(in[0].node, n.axis + 1, n.offset, out);
  case Op::Concat: return g.concat(materialise(g, in[0], batch), materialise(g, in[1], batch), n.axis + 1);
  case Op::Argmax: return g.argmax(in[0].node, n.axis + 1);
  case Op::Take:
    if (!in[1].batched) return g.take(in[0].node, in[1].node, n.axis + 1, n.index_use);
    if (!in[0].batched) {
      // x's axes before `axis`, then the indices' (batch first), then x's after.
      return move_axis(g, g.take(in[0].node, in[1].node, n.axis, n.index_use), n.axis, 0);
    }
    return take_both(g, n, in[0].node, in[1].node, batch);
  case Op::ScatterAdd:
    if (!in[1].batched) return g.scatter_add(in[0].node, in[1].node, n.axis + 1, out, n.index_use);
    return scatter_both(g, n, materialise(g, in[0], batch), in[1].node, batch);
  case Op::Random:
    throw_errorf(
        "vmap: random numbers drawn from a mapped key are not supported (draw them outside vmap, "
        "or map over a tensor of them)");
  case Op::Allreduce: return g.allreduce(in[0].node, n.axis, uint64_t(n.offset));
  case Op::Loop: {  // compiler/batch_loop.h (vmap's pass calls it with a view of the packing)
    GraphNode m = n;
    m.in[0] = 0;
    m.in[1] = 1;
    return batch_loop(g, m, OperandView(in), batch);
  }
  }
  throw_errorf("vmap: internal error: no batching rule for '{}'", op_name(n.op));
}

}  // namespace kiln

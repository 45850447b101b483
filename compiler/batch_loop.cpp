// batch_loop.cpp — the Loop node's batching rule (batch_loop.h).
#include "compiler/batch_loop.h"

#include <memory>
#include <vector>

#include "compiler/loop.h"
#include "compiler/optimise.h"

namespace kiln {
namespace {

constexpr const char *kVmapWho = "vmap";

LeafSpec batched_leaf(int64_t batch, const LeafSpec &s) {
  return LeafSpec{batched_shape(batch, s.shape), false};
}

// [a, b, c] -> [b, a, c]
int32_t swap_first_two(Graph &g, int32_t x) {
  static const int perm[3] = {1, 0, 2};
  return g.transpose(x, perm);
}

// Entries [start, start + len) of a packed (rank-1 per example) operand, seen
// through the Concats, Slices and Reshapes that packed it: [len] when that range
// is the same for every example, else [batch, len].
class Ranges {
 public:
  Ranges(Graph &g, const BatchedView &v, int64_t batch) : g_(g), v_(v), batch_(batch) {}

  BatchOperand get(int32_t o, int64_t start, int64_t len) {
    BatchOperand b = v_.batched(o);
    if (!b.batched) {
      int32_t flat = g_.reshape(b.node, Shape::of({g_[b.node].size()}), false);
      return {g_.slice(flat, 0, start, len), false};
    }
    if (const GraphNode *n = v_.example_node(o)) {
      const GraphNode e = *n;  // recording below may move the node it points into
      if (e.op == Op::Concat && e.shape.rank == 1) {
        int64_t la = example_shape(e.in[0]).size();
        if (start + len <= la) return get(e.in[0], start, len);
        if (start >= la) return get(e.in[1], start - la, len);
        BatchOperand a = get(e.in[0], start, la - start);
        BatchOperand c = get(e.in[1], 0, start + len - la);
        return join(a, c);
      }
      if (e.op == Op::Slice && e.shape.rank == 1) return get(e.in[0], start + e.offset, len);
      if (e.op == Op::Reshape) {
        if (example_shape(e.in[0]).rank == 1) return get(e.in[0], start, len);
        if (start == 0 && len == e.size()) {
          BatchOperand x = v_.batched(e.in[0]);
          if (!x.batched) return {g_.reshape(x.node, Shape::of({len}), false), false};
          return {g_.reshape(x.node, Shape::of({batch_, len}), false), true};
        }
      }
    }
    int32_t rows = g_.reshape(b.node, Shape::of({batch_, g_[b.node].size() / batch_}), false);
    return {g_.slice(rows, 1, start, len), true};
  }

  // [batch, len] for a range, repeated when it is the same for every example.
  int32_t rows(const BatchOperand &r) {
    if (r.batched) return r.node;
    return broadcast_batch(g_, r.node, batch_);
  }

 private:
  Shape example_shape(int32_t o) const {
    if (const GraphNode *n = v_.example_node(o)) return n->shape;
    BatchOperand b = v_.batched(o);
    Shape s = g_[b.node].shape;
    if (!b.batched) return s;
    for (int i = 1; i < s.rank; i++) s.dim[i - 1] = s.dim[i];
    s.rank--;
    return s;
  }
  BatchOperand join(const BatchOperand &a, const BatchOperand &c) {
    if (!a.batched && !c.batched) return {g_.concat(a.node, c.node, 0), false};
    return {g_.concat(rows(a), rows(c), 1), true};
  }

  Graph &g_;
  const BatchedView &v_;
  int64_t batch_;
};

// Which nodes of `body` depend on a batched param.
std::vector<char> flow(const Graph &body, const std::vector<char> &param_batched) {
  std::vector<char> b(size_t(body.size()), 0);
  for (int32_t i = 0; i < body.size(); i++) {
    const GraphNode &n = body[i];
    if (n.op == Op::Param) {
      b[size_t(i)] = param_batched[size_t(n.param_index)];
      continue;
    }
    for (int q = 0; q < op_arity(n.op); q++) b[size_t(i)] |= b[size_t(n.in[q])];
  }
  return b;
}

// A per-example graph batched node by node into another.
class GraphView : public BatchedView {
 public:
  GraphView(const Graph &src, const std::vector<BatchOperand> &map) : src_(src), map_(map) {}
  const GraphNode *example_node(int32_t o) const override { return &src_[o]; }
  BatchOperand batched(int32_t o) const override { return map_[size_t(o)]; }

 private:
  const Graph &src_;
  const std::vector<BatchOperand> &map_;
};

// Records `src` into `dst`, its param k being params[k]; map[i] is node i's form.
void batch_graph(Graph &dst, const Graph &src, const std::vector<BatchOperand> &params, int64_t batch,
                 std::vector<BatchOperand> &map) {
  dst.adopt_constants(src);
  map.assign(size_t(src.size()), BatchOperand{-1, false});
  GraphView view(src, map);
  for (int32_t i = 0; i < src.size(); i++) {
    GraphNode n = src[i];
    if (n.op == Op::Param) {
      map[size_t(i)] = params[size_t(n.param_index)];
      continue;
    }
    BatchOperand in[3];
    bool any = false;
    for (int q = 0; q < op_arity(n.op); q++) {
      in[q] = map[size_t(n.in[q])];
      any = any || in[q].batched;
      n.in[q] = in[q].node;
    }
    if (!any) map[size_t(i)] = {dst.record(n), false};
    else if (n.op == Op::Loop) map[size_t(i)] = {batch_loop(dst, src[i], view, batch), true};
    else map[size_t(i)] = {batch_node(dst, n, in, batch), true};
  }
}

// A loop node's operands split into their leaves: the carry (operand 0), then
// the captures and each XS leaf's T steps (operand 1).
struct LoopOperands {
  std::vector<BatchOperand> carry, caps, xs;
};
LoopOperands split_operands(Ranges &ranges, const GraphNode &n, const LoopBody &L) {
  const int64_t T = L.trips > 0 ? L.trips : 0;
  LoopOperands ops;
  int64_t at = 0;
  for (const LeafSpec &s : L.carry) {
    ops.carry.push_back(ranges.get(n.in[0], at, s.shape.size()));
    at += s.shape.size();
  }
  at = 0;
  for (const LeafSpec &s : L.captures) {
    ops.caps.push_back(ranges.get(n.in[1], at, s.shape.size()));
    at += s.shape.size();
  }
  for (const LeafSpec &s : L.xs) {
    ops.xs.push_back(ranges.get(n.in[1], at, s.shape.size() * T));
    at += s.shape.size() * T;
  }
  return ops;
}

int32_t finish(Graph &g, const LoopBody &L, LoopBody &NL, Ranges &ranges, const LoopOperands &ops,
               const std::vector<char> &param_b, const std::vector<char> &y_b, int64_t batch);

}  // namespace

int32_t batch_loop(Graph &g, const GraphNode &n, const BatchedView &view, int64_t batch) {
  const LoopBody &L = *n.loop;
  const size_t nc = L.carry.size(), nx = L.xs.size(), ny = L.ys.size(), ncap = L.captures.size();
  Ranges ranges(g, view, batch);

  // Each leaf of the operands, and whether it is batched.
  const LoopOperands ops = split_operands(ranges, n, L);
  const std::vector<BatchOperand> &carry_in = ops.carry, &cap_in = ops.caps, &xs_in = ops.xs;
  // Body params: the step, the carry, one step's XS, the captures.
  std::vector<char> param_b(1 + nc + nx + ncap, 0);
  for (size_t k = 0; k < nc; k++) param_b[1 + k] = carry_in[k].batched;
  for (size_t k = 0; k < nx; k++) param_b[1 + nc + k] = xs_in[k].batched;
  for (size_t k = 0; k < ncap; k++) param_b[1 + nc + nx + k] = cap_in[k].batched;
  // A carry leaf a step makes batched is batched from the start.
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<char> b = flow(*L.body, param_b);
    for (size_t k = 0; k < nc; k++)
      if (b[size_t(L.body->outputs[k].node)] && !param_b[1 + k]) param_b[1 + k] = changed = true;
  }
  // A COND that differs between examples: the loop runs while any goes on, and
  // every carry leaf is batched (each example stops at its own step).
  bool masked = L.cond && flow(*L.cond, param_b)[size_t(L.cond->outputs[0].node)];
  if (masked)
    for (size_t k = 0; k < nc; k++) param_b[1 + k] = 1;

  auto NL = std::make_shared<LoopBody>();
  NL->kind = L.kind;
  NL->trips = L.trips;
  NL->reverse = L.reverse;
  NL->save_carries = L.save_carries;
  for (size_t k = 0; k < nc; k++)
    NL->carry.push_back(param_b[1 + k] ? batched_leaf(batch, L.carry[k]) : L.carry[k]);
  for (size_t k = 0; k < nx; k++)
    NL->xs.push_back(param_b[1 + nc + k] ? batched_leaf(batch, L.xs[k]) : L.xs[k]);
  for (size_t k = 0; k < ncap; k++)
    NL->captures.push_back(param_b[1 + nc + nx + k] ? batched_leaf(batch, L.captures[k]) : L.captures[k]);

  // The batched body (and COND) on the batched params, or the one batched before.
  const BatchedView::BatchedBody *known = nullptr;
  for (const BatchedView::BatchedBody &b : view.bodies)
    if (b.body == L.body.get() && b.cond == L.cond.get() && b.params == param_b && b.batch == batch)
      known = &b;
  if (known) {
    NL->body = known->new_body;
    NL->cond = known->new_cond;
    for (size_t k = 0; k < ny; k++) NL->ys.push_back(known->ys[k] ? batched_leaf(batch, L.ys[k]) : L.ys[k]);
    return finish(g, L, *NL, ranges, ops, param_b, known->ys, batch);
  }
  auto params_of = [&](Graph &b) {
    std::vector<BatchOperand> ps;
    ps.push_back({b.param(0, ArgSpec{Shape{}, true}), false});
    auto add = [&](const LeafSpec &s, char batched) {
      ps.push_back({b.param(int(ps.size()), ArgSpec{s.shape, s.is_number}), batched != 0});
    };
    for (size_t k = 0; k < nc; k++) add(NL->carry[k], param_b[1 + k]);
    for (size_t k = 0; k < nx; k++) add(NL->xs[k], param_b[1 + nc + k]);
    for (size_t k = 0; k < ncap; k++) add(NL->captures[k], param_b[1 + nc + nx + k]);
    b.num_params = int(ps.size());
    return ps;
  };
  Graph body;
  std::vector<BatchOperand> ps = params_of(body), map;
  batch_graph(body, *L.body, ps, batch, map);
  std::vector<int32_t> outs;
  for (size_t k = 0; k < nc; k++) {
    BatchOperand o = map[size_t(L.body->outputs[k].node)];
    outs.push_back(param_b[1 + k] && !o.batched ? broadcast_batch(body, o.node, batch) : o.node);
  }
  std::vector<char> y_b;
  for (size_t k = 0; k < ny; k++) {
    BatchOperand o = map[size_t(L.body->outputs[nc + k].node)];
    y_b.push_back(o.batched);
    NL->ys.push_back(o.batched ? batched_leaf(batch, L.ys[k]) : L.ys[k]);
    outs.push_back(o.node);
  }
  if (masked) {
    // An example whose COND is false (0.0; NaN goes on) keeps its carry.
    std::vector<BatchOperand> cmap;
    batch_graph(body, *L.cond, ps, batch, cmap);
    int32_t done =
        body.binary(kVmapWho, Op::Equal, cmap[size_t(L.cond->outputs[0].node)].node, body.constant(0.0));
    for (size_t k = 0; k < nc; k++) {
      Shape m;
      m.rank = body[outs[k]].shape.rank;
      for (int d = 0; d < m.rank; d++) m.dim[d] = 1;
      m.dim[0] = batch;
      outs[k] = body.select(kVmapWho, body.reshape(done, m, false), ps[1 + k].node, outs[k]);
    }
  }
  for (int32_t o : outs) body.outputs.push_back({o, body[o].is_number});
  NL->body = std::make_shared<Graph>();
  optimise_into(body, *NL->body);
  if (L.cond) {
    Graph cond;
    std::vector<BatchOperand> cps = params_of(cond), cmap;
    batch_graph(cond, *L.cond, cps, batch, cmap);
    int32_t c = cmap[size_t(L.cond->outputs[0].node)].node;
    if (masked) {  // go on while any example goes on
      int32_t go = cond.binary(kVmapWho, Op::Sub, cond.constant(1.0),
                               cond.binary(kVmapWho, Op::Equal, c, cond.constant(0.0)));
      c = cond.reshape(cond.reduce_all(Op::Max, go), Shape{}, true);
    }
    cond.outputs.push_back({c, true});
    NL->cond = std::make_shared<Graph>();
    optimise_into(cond, *NL->cond);
  }
  view.bodies.push_back({L.body.get(), L.cond.get(), param_b, batch, NL->body, NL->cond, y_b});
  return finish(g, L, *NL, ranges, ops, param_b, y_b, batch);
}

namespace {

// The batched loop node NL (its body ready) on n's operands, and its result as
// the per-example node's with the batch first.
int32_t finish(Graph &g, const LoopBody &L, LoopBody &NL, Ranges &ranges, const LoopOperands &ops,
               const std::vector<char> &param_b, const std::vector<char> &y_b, int64_t batch) {
  const size_t nc = L.carry.size(), nx = L.xs.size(), ny = L.ys.size(), ncap = L.captures.size();
  const int64_t T = L.trips > 0 ? L.trips : 0;
  const std::vector<BatchOperand> &carry_in = ops.carry, &cap_in = ops.caps, &xs_in = ops.xs;

  // The operands packed: batched leaves hold the batch first, a batched XS leaf
  // [steps, batch, ...] so that one step's slice is contiguous.
  auto pack = [&](const std::vector<int32_t> &pieces) {
    int32_t acc = -1;
    for (int32_t x : pieces) acc = acc < 0 ? x : g.concat(acc, x, 0);
    return acc < 0 ? g.constant(0.0, true) : acc;
  };
  auto flat = [&](int32_t x) { return g.reshape(x, Shape::of({g[x].size()}), false); };
  std::vector<int32_t> carry_pieces, const_pieces;
  for (size_t k = 0; k < nc; k++)
    carry_pieces.push_back(param_b[1 + k] ? flat(ranges.rows(carry_in[k])) : carry_in[k].node);
  for (size_t k = 0; k < ncap; k++)
    const_pieces.push_back(param_b[1 + nc + nx + k] ? flat(ranges.rows(cap_in[k])) : cap_in[k].node);
  for (size_t k = 0; k < nx; k++) {
    if (!param_b[1 + nc + k]) {
      const_pieces.push_back(xs_in[k].node);
      continue;
    }
    int64_t s = L.xs[k].shape.size();
    int32_t x3 = g.reshape(xs_in[k].node, Shape::of({batch, T, s}), false);
    const_pieces.push_back(flat(swap_first_two(g, x3)));
  }
  GraphNode ln;
  ln.op = Op::Loop;
  ln.loop = &NL;
  ln.in[0] = pack(carry_pieces);
  ln.in[1] = pack(const_pieces);
  ln.shape = Shape::of({NL.result_size()});
  g.keep_loop(&NL);
  int32_t loop = g.record(ln);

  // The per-example result, every example's a row: [batch, result size].
  int64_t off = 0;
  std::vector<int32_t> rows;
  auto per_step = [&](int64_t size, bool batched) {  // one leaf stacked over the steps
    int64_t len = size * T * (batched ? batch : 1);
    int32_t piece = g.slice(loop, 0, off, len);
    off += len;
    if (!batched) return broadcast_batch(g, piece, batch);
    int32_t x = swap_first_two(g, g.reshape(piece, Shape::of({T, batch, size}), false));
    return g.reshape(x, Shape::of({batch, T * size}), false);
  };
  for (size_t k = 0; k < nc; k++) {
    int64_t size = L.carry[k].shape.size();
    int64_t len = size * (param_b[1 + k] ? batch : 1);
    int32_t piece = g.slice(loop, 0, off, len);
    off += len;
    rows.push_back(param_b[1 + k] ? g.reshape(piece, Shape::of({batch, size}), false)
                                  : broadcast_batch(g, piece, batch));
  }
  for (size_t k = 0; k < ny; k++) rows.push_back(per_step(L.ys[k].shape.size(), y_b[k]));
  if (L.save_carries)
    for (size_t k = 0; k < nc; k++) rows.push_back(per_step(L.carry[k].shape.size(), param_b[1 + k]));
  int32_t r = rows[0];
  for (size_t k = 1; k < rows.size(); k++) r = g.concat(r, rows[k], 1);
  return r;
}

}  // namespace

}  // namespace kiln

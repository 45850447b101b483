// graph_eval.cpp — the graph interpreter (graph_eval.h).
//
// Invariant: a node's buffer is live from the node's evaluation until its last
// use (by a later node or as an output); pool buffers are recycled at that
// point. Reshape nodes that are not outputs alias their operand's buffer, so
// their uses count as uses of that buffer (the "storage root").
#include "compiler/graph_eval.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "compiler/collective.h"
#include "compiler/loop.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shapes.h"

namespace kiln {

int64_t indexed_length(const Graph &g, const GraphNode &n) {
  return n.op == Op::Take ? g[n.in[0]].shape.dim[n.axis] : n.shape.dim[n.axis];
}

IndexFault index_fault(const Graph &g, const GraphNode &n, const double *idx) {
  int64_t len = indexed_length(g, n);
  int64_t bad = k_bad_index(idx, g[n.in[1]].size(), len);
  return IndexFault{n.index_use, bad >= 0 ? idx[bad] : 0.0, n.axis, len};
}

// Take and ScatterAdd: gather or scatter along the axis, [outer][len][inner]
// being the larger side (Take's operand, ScatterAdd's result).
static bool eval_indexed(const Graph &g, const GraphNode &n, const double *const *in, double *out) {
  const Shape &big = n.op == Op::Take ? g[n.in[0]].shape : n.shape;
  int64_t outer, len, inner, count = g[n.in[1]].size();
  axis_split(big, n.axis, outer, len, inner);
  if (k_bad_index(in[1], count, len) >= 0) return false;
  if (n.op == Op::Take) k_take(in[0], outer, len, inner, in[1], count, out);
  else k_scatter_add(in[0], outer, len, inner, in[1], count, out);
  return true;
}

bool eval_node(const Graph &g, const GraphNode &n, const double *const *in, double *out) {
  auto shape_of = [&](int k) -> const Shape & { return g[n.in[k]].shape; };
  switch (n.op) {
  KILN_BINARY_OP_CASES:
    k_binary(op_binary(n.op), in[0], shape_of(0), in[1], shape_of(1), out, n.shape);
    return true;
  KILN_UNARY_OP_CASES:
    k_unary(op_unary(n.op), in[0], n.size(), out);
    return true;
  case Op::Param:
  case Op::Const: return true;  // not computed
  case Op::Select:
    k_select(in[0], shape_of(0), in[1], shape_of(1), in[2], shape_of(2), out, n.shape);
    return true;
  case Op::Sum: out[0] = k_sum(in[0], g[n.in[0]].size()); return true;
  case Op::Mean: out[0] = k_mean(in[0], g[n.in[0]].size()); return true;
  case Op::Max: out[0] = k_max(in[0], g[n.in[0]].size()); return true;
  case Op::SumAxis: k_sum_axis(in[0], shape_of(0), n.axis, out); return true;
  case Op::MeanAxis: k_mean_axis(in[0], shape_of(0), n.axis, out); return true;
  case Op::MaxAxis: k_max_axis(in[0], shape_of(0), n.axis, out); return true;
  case Op::SumTo: k_sum_to(in[0], shape_of(0), out, n.shape); return true;
  case Op::BroadcastTo: {
    static const double one = 1.0;
    k_binary(BinaryOp::Mul, in[0], shape_of(0), &one, Shape{}, out, n.shape);
    return true;
  }
  case Op::Matmul: {
    const Shape &a = shape_of(0), &b = shape_of(1);
    int r = a.rank;
    Shape batch = a;
    batch.rank = r - 2;
    k_matmul_batched(in[0], batch, in[1], batch, out, batch, a.dim[r - 2], a.dim[r - 1], b.dim[r - 1]);
    return true;
  }
  case Op::Transpose: {
    int perm[kMaxRank];
    for (int i = 0; i < n.shape.rank; i++) perm[i] = n.perm[i];
    k_transpose(in[0], shape_of(0), perm, out);
    return true;
  }
  case Op::Reshape: std::memcpy(out, in[0], size_t(n.size()) * sizeof(double)); return true;
  case Op::Slice:
  case Op::Pad: {
    // The smaller of input and output is the one whole along the axis.
    const Shape &x = shape_of(0);
    int64_t outer, len_out, inner, len_in = x.dim[n.axis];
    axis_split(n.shape, n.axis, outer, len_out, inner);
    if (n.op == Op::Slice) {
      k_copy_along(in[0], len_in, n.offset, out, len_out, 0, len_out, outer, inner);
    } else {
      std::memset(out, 0, size_t(n.size()) * sizeof(double));  // all-zero bits: 0.0
      k_copy_along(in[0], len_in, 0, out, len_out, n.offset, len_in, outer, inner);
    }
    return true;
  }
  case Op::Concat: {
    int64_t outer, len, inner, la = shape_of(0).dim[n.axis], lb = shape_of(1).dim[n.axis];
    axis_split(n.shape, n.axis, outer, len, inner);
    k_copy_along(in[0], la, 0, out, len, 0, la, outer, inner);
    k_copy_along(in[1], lb, 0, out, len, la, lb, outer, inner);
    return true;
  }
  case Op::MaxMask: {
    const Shape &s = n.shape;
    const double *x = in[0];
    std::memset(out, 0, size_t(n.size()) * sizeof(double));
    if (n.axis < 0) {
      out[k_argmax(x, n.size())] = 1.0;
      return true;
    }
    // Per line along `axis`: k_argmax_axis's index (first maximal, or first NaN).
    int64_t outer, len, inner;
    axis_split(s, n.axis, outer, len, inner);
    std::vector<double> best(size_t(outer * inner));
    k_argmax_axis(x, s, n.axis, best.data());
    for (int64_t o = 0; o < outer; o++)
      for (int64_t j = 0; j < inner; j++)
        out[o * len * inner + int64_t(best[size_t(o * inner + j)]) * inner + j] = 1.0;
    return true;
  }
  case Op::Argmax: k_argmax_axis(in[0], shape_of(0), n.axis, out); return true;
  case Op::Take:
  case Op::ScatterAdd: return eval_indexed(g, n, in, out);
  case Op::Random: {
    uint64_t key;
    if (!random_key_of_double(in[0][0], key)) return false;
    k_random(RandomKind(n.axis), key, out, 0, n.size());
    return true;
  }
  case Op::Allreduce:  // a failure is raised by graph_eval once its buffers are back
    kiln_allreduce_leaf(in[0], out, n.size(), n.axis, uint64_t(n.offset));
    return true;
  case Op::Loop: return run_loop(*n.loop, in[0], in[1], out);
  }
  return true;
}

namespace {

// Buffers recycled within and across evaluations (interpreter thread only).
struct BufferPool {
  struct Buf {
    int64_t cap;
    double *p;
  };
  std::vector<Buf> free_list;
  int64_t retained = 0;  // doubles held in free_list

  double *take(int64_t n, int64_t &cap) {
    size_t best = free_list.size();
    for (size_t i = 0; i < free_list.size(); i++)
      if (free_list[i].cap >= n && (best == free_list.size() || free_list[i].cap < free_list[best].cap))
        best = i;
    if (best < free_list.size()) {
      double *p = free_list[best].p;
      cap = free_list[best].cap;
      retained -= cap;
      free_list[best] = free_list.back();
      free_list.pop_back();
      return p;
    }
    size_t bytes = (size_t(n) * sizeof(double) + 63) / 64 * 64;
    cap = int64_t(bytes / sizeof(double));
    auto *p = static_cast<double *>(std::aligned_alloc(64, bytes));
    if (!p) throw std::bad_alloc();
    return p;
  }
  void give(double *p, int64_t cap) {
    constexpr int64_t kMaxRetained = int64_t(64) << 20 >> 3;  // 64 MB of doubles
    if (retained + cap > kMaxRetained) {
      std::free(p);
      return;
    }
    free_list.push_back({cap, p});
    retained += cap;
  }
};

BufferPool &pool() {
  static thread_local BufferPool p;
  return p;
}

}  // namespace

void graph_eval(const Graph &g, const Value *args, Value *results) {
  const int32_t count = g.size();
  // Per-node scratch, reused across evaluations (the interpreter never re-enters itself).
  static thread_local std::vector<const double *> val;
  static thread_local std::vector<int32_t> root, last_use, output_slot;
  static thread_local std::vector<double> param_scalars;
  static thread_local std::vector<double *> pool_buf;
  static thread_local std::vector<int64_t> pool_cap;
  val.assign(size_t(count), nullptr);
  root.assign(size_t(count), 0);
  last_use.assign(size_t(count), -1);
  output_slot.assign(size_t(count), -1);
  param_scalars.assign(size_t(g.num_params) + 1, 0.0);
  pool_buf.assign(size_t(count), nullptr);
  pool_cap.assign(size_t(count), 0);
  // Output tensors live in GC memory so a collection during the evaluation sees them.
  auto *out_tensor = static_cast<Value *>(gc_alloc(g.outputs.size() * sizeof(Value) + 1));
  // Mark tensor outputs (the first output slot naming a node owns its tensor).
  for (size_t k = 0; k < g.outputs.size(); k++) {
    out_tensor[k] = NOVALUE;
    const GraphOutput &o = g.outputs[k];
    if (!o.as_number && output_slot[size_t(o.node)] < 0) output_slot[size_t(o.node)] = int32_t(k);
  }
  // Storage roots and last uses; outputs live to the end.
  for (int32_t i = 0; i < count; i++) {
    const GraphNode &n = g[i];
    root[size_t(i)] = (n.op == Op::Reshape && output_slot[size_t(i)] < 0) ? root[size_t(n.in[0])] : i;
    for (int k = 0; k < op_arity(n.op); k++) last_use[size_t(root[size_t(n.in[k])])] = i;
  }
  for (auto &o : g.outputs) last_use[size_t(root[size_t(o.node)])] = count;

  BufferPool &bp = pool();
  const double *in[3];
  for (int32_t i = 0; i < count; i++) {
    const GraphNode &n = g[i];
    if (n.op == Op::Param) {
      Value a = args[n.param_index];
      if (is_tensor(a)) {
        val[size_t(i)] = tensor_of(a)->data;
      } else {
        param_scalars[size_t(n.param_index)] = number_as_double(a);
        val[size_t(i)] = &param_scalars[size_t(n.param_index)];
      }
    } else if (n.op == Op::Const) {
      val[size_t(i)] = n.const_data ? n.const_data : &n.scalar;
    } else if (root[size_t(i)] != i) {
      val[size_t(i)] = val[size_t(n.in[0])];  // aliasing reshape
    } else {
      double *out;
      int32_t slot = output_slot[size_t(i)];
      if (slot >= 0) {
        Tensor *t = alloc_tensor(n.shape);
        out_tensor[size_t(slot)] = from_ptr(t);
        out = t->data;
      } else {
        out = bp.take(n.size(), pool_cap[size_t(i)]);
        pool_buf[size_t(i)] = out;
      }
      for (int k = 0; k < op_arity(n.op); k++) in[k] = val[size_t(n.in[k])];
      if (!eval_node(g, n, in, out)) {
        if (n.op == Op::Loop) {
          for (int32_t j = 0; j <= i; j++)
            if (pool_buf[size_t(j)]) bp.give(pool_buf[size_t(j)], pool_cap[size_t(j)]);
          raise_loop_fault();
        }
        if (n.op == Op::Random) {
          double key = in[0][0];
          for (int32_t j = 0; j <= i; j++)
            if (pool_buf[size_t(j)]) bp.give(pool_buf[size_t(j)], pool_cap[size_t(j)]);
          random_key_error(RandomKind(n.axis), key);
        }
        IndexFault f = index_fault(g, n, in[1]);
        for (int32_t j = 0; j <= i; j++)
          if (pool_buf[size_t(j)]) bp.give(pool_buf[size_t(j)], pool_cap[size_t(j)]);
        take_index_error(f.use, f.index, f.axis, f.len);
      }
      val[size_t(i)] = out;
    }
    // Recycle the buffers whose last use was this node.
    for (int k = 0; k < op_arity(n.op); k++) {
      int32_t r = root[size_t(n.in[k])];
      if (last_use[size_t(r)] == i && pool_buf[size_t(r)]) {
        bp.give(pool_buf[size_t(r)], pool_cap[size_t(r)]);
        pool_buf[size_t(r)] = nullptr;
      }
    }
  }

  for (size_t k = 0; k < g.outputs.size(); k++) {
    const GraphOutput &o = g.outputs[k];
    const GraphNode &n = g[o.node];
    const double *data = val[size_t(o.node)];
    if (o.as_number) {
      results[k] = make_double(data[0]);
    } else if (output_slot[size_t(o.node)] >= 0 &&
               out_tensor[size_t(output_slot[size_t(o.node)])] != NOVALUE) {
      results[k] = out_tensor[size_t(output_slot[size_t(o.node)])];
    } else {
      // A param or constant returned as is: a fresh tensor holding its elements.
      Tensor *t = alloc_tensor(n.shape);
      std::memcpy(t->data, data, size_t(n.size()) * sizeof(double));
      results[k] = from_ptr(t);
    }
  }
  for (int32_t i = 0; i < count; i++)
    if (pool_buf[size_t(i)]) bp.give(pool_buf[size_t(i)], pool_cap[size_t(i)]);
  raise_pending_collective_error();
}

}  // namespace kiln

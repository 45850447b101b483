// codegen.cpp — emit_kernel: binds the plan's slots (kernel_plan.h) to the
// kernel's buffers and walks its steps, calling one lowering (kernel_emitter.h)
// per node, fused run or pair of sums.
#include "codegen.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <string>

#include "kernel_emitter.h"

namespace kiln {

using jit::Emitter;
using jit::LV;
using jit::Ref;
using jit::RV;

// One loop for a run of element-wise nodes over the same elements (steps
// marked fuse_next): each element goes through the same IEEE operations as in
// separate loops, but a value is stored only if a node outside the run, or an
// output, reads it.
static void emit_fused_run(Emitter &E, const Graph &g, const std::vector<Ref> &refs,
                           const std::vector<int32_t> &run, const std::vector<bool> &is_output,
                           const std::vector<std::vector<int32_t>> &readers) {
  std::vector<bool> in_run(size_t(g.size()), false);
  for (int32_t r : run) in_run[size_t(r)] = true;
  std::string note = "fused:";
  for (int32_t r : run) note += fmt::format(" {} {}", r, op_name(g[r].op));
  gcc_jit_block_add_comment(E.cur, nullptr, note.c_str());
  std::map<int32_t, RV> scalars;  // one-element operands, read once before the loop
  for (int32_t r : run)
    for (int q = 0; q < op_arity(g[r].op); q++) {
      int32_t a = g[r].in[q];
      if (!in_run[size_t(a)] && g[a].size() == 1 && !scalars.count(a))
        scalars[a] = E.once(E.load(refs[size_t(a)], E.ix(0)));
    }
  E.loop(0, g[run[0]].size(), 1, [&](RV t) {
    std::map<int32_t, RV> value;
    for (int32_t r : run) {
      const GraphNode &n = g[r];
      auto operand = [&](int q) {
        int32_t a = n.in[q];
        if (in_run[size_t(a)]) return value[a];
        if (g[a].size() == 1) return scalars[a];
        return E.load(refs[size_t(a)], t);
      };
      RV v;
      if (op_is_binary(n.op)) v = E.scalar_binary(op_binary(n.op), operand(0), operand(1));
      else if (op_is_unary(n.op)) v = E.scalar_unary(op_unary(n.op), operand(0));
      else if (n.op == Op::Select)
        v = E.select(E.cmp(GCC_JIT_COMPARISON_NE, operand(0), E.lit(0.0)), operand(1), operand(2));
      else v = E.dop(GCC_JIT_BINARY_OP_MULT, operand(0), E.lit(1.0));  // BroadcastTo: k_binary(Mul, x, 1.0)
      v = E.once(v);
      value[r] = v;
      bool stored = is_output[size_t(r)];
      for (int32_t reader : readers[size_t(r)]) stored = stored || !in_run[size_t(reader)];
      if (stored) E.st(refs[size_t(r)].base, t, v);
    }
  });
}

void emit_kernel(gcc_jit_context *ctx, const Graph &g, const KernelLayout &L) {
  Emitter E(ctx);
  gcc_jit_param *params[4] = {gcc_jit_context_new_param(ctx, nullptr, E.t_dpp, "args"),
                              gcc_jit_context_new_param(ctx, nullptr, E.t_dpp, "results"),
                              gcc_jit_context_new_param(ctx, nullptr, E.t_dptr, "scratch"),
                              gcc_jit_context_new_param(ctx, nullptr, E.t_par_fn, "par")};
  E.fn = gcc_jit_context_new_function(ctx, nullptr, GCC_JIT_FUNCTION_EXPORTED, E.t_void, kKernelFunction, 4,
                                      params, 0);
  E.par = gcc_jit_param_as_rvalue(params[3]);
  E.cur = gcc_jit_function_new_block(E.fn, "entry");
  RV args = gcc_jit_param_as_rvalue(params[0]);
  RV results = gcc_jit_param_as_rvalue(params[1]);
  RV scratch = gcc_jit_param_as_rvalue(params[2]);

  // Every node's element source, and the buffer a computed node writes.
  std::vector<Ref> refs(size_t(g.size()));
  std::vector<RV> result_ptr(g.outputs.size());
  for (size_t o = 0; o < g.outputs.size(); o++)
    result_ptr[o] = E.rv(E.local_init(E.t_dptr, "res", E.ld(results, E.ix(int64_t(o)))));
  for (int32_t i = 0; i < g.size(); i++) {
    const KernelLayout::Slot &s = L.slots[size_t(i)];
    Ref &r = refs[size_t(i)];
    switch (s.place) {
    case KernelLayout::Place::Arg:
    case KernelLayout::Place::ConstTensor:
      r.base = E.rv(E.local_init(E.t_dptr, "arg", E.ld(args, E.ix(s.index))));
      break;
    case KernelLayout::Place::ConstScalar: r.scalar = g[i].scalar; break;
    case KernelLayout::Place::Scratch:
      r.base = gcc_jit_lvalue_get_address(E.elem(scratch, E.ix(s.offset)), nullptr);
      break;
    case KernelLayout::Place::Result: r.base = result_ptr[size_t(s.index)]; break;
    }
  }

  // Left-operand transposes are not materialised: their matmuls read the input
  // in place (a[i][kk] = x[kk][i]; the broadcast operand is loaded one element
  // at a time anyway).
  std::vector<bool> read_in_place = left_operand_transposes(g);
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    if (!read_in_place[size_t(i)]) continue;
    if (!refs[size_t(n.in[0])].base) {
      read_in_place[size_t(i)] = false;
      continue;
    }
    Ref &r = refs[size_t(i)];
    r = refs[size_t(n.in[0])];
    r.transposed = true;
    r.ld = n.shape.dim[0];  // the input is k x m: rows of length m
  }

  auto store_sum = [&](int32_t i, RV acc) {
    const GraphNode &n = g[i];
    RV v = n.op == Op::Mean ? E.dop(GCC_JIT_BINARY_OP_DIVIDE, acc, E.lit(double(g[n.in[0]].size()))) : acc;
    E.st(refs[size_t(i)].base, E.ix(0), v);
  };
  // Which nodes each node's value is read by, for fused loops (below).
  std::vector<std::vector<int32_t>> readers(size_t(g.size()));
  for (int32_t i = 0; i < g.size(); i++)
    for (int q = 0; q < op_arity(g[i].op); q++) readers[size_t(g[i].in[q])].push_back(i);
  std::vector<bool> is_output(size_t(g.size()), false);
  for (const GraphOutput &o : g.outputs) is_output[size_t(o.node)] = true;

  std::vector<EmitStep> steps = kernel_emission_order(g);
  for (size_t p = 0; p < steps.size(); p++) {
    const EmitStep &step = steps[p];
    int32_t i = step.node;
    if (step.fuse_next) {
      std::vector<int32_t> run{i};
      while (steps[p].fuse_next) run.push_back(steps[++p].node);
      emit_fused_run(E, g, refs, run, is_output, readers);
      continue;
    }
    if (step.paired >= 0 || step.host >= 0) {
      std::vector<int32_t> sums{i};
      if (step.paired >= 0) sums.push_back(step.paired);
      std::string note;
      for (int32_t s : sums) note += fmt::format("{}{} {}", note.empty() ? "" : " and ", s, op_name(g[s].op));
      if (step.host >= 0) note += fmt::format(" riding in {} {}", step.host, op_name(g[step.host].op));
      gcc_jit_block_add_comment(E.cur, nullptr, note.c_str());
      std::vector<Ref> xs;
      for (int32_t s : sums) xs.push_back(refs[size_t(g[s].in[0])]);
      int64_t len = g[g[i].in[0]].size();
      std::vector<RV> totals;
      if (step.host >= 0) {
        const GraphNode &t = g[step.host];
        totals = E.serial_sums(xs, len, transpose_band_iterations(t), [&](const std::function<void()> &each) {
          E.transpose2(refs[size_t(t.in[0])], t.shape.dim[0], t.shape.dim[1], refs[size_t(step.host)].base,
                       &each);
        });
      } else {
        totals = E.serial_sums(xs, len, 0, nullptr);
      }
      for (size_t q = 0; q < sums.size(); q++) store_sum(sums[q], totals[q]);
      continue;
    }
    const GraphNode &n = g[i];
    if (n.op == Op::Param || n.op == Op::Const || read_in_place[size_t(i)]) continue;
    gcc_jit_block_add_comment(E.cur, nullptr, (std::to_string(i) + " " + op_name(n.op)).c_str());
    RV out = refs[size_t(i)].base;
    auto in = [&](int q) -> const Ref & { return refs[size_t(n.in[q])]; };
    auto ish = [&](int q) -> const Shape & { return g[n.in[q]].shape; };
    if (op_is_binary(n.op)) {
      E.binary(op_binary(n.op), in(0), ish(0), in(1), ish(1), out, n.shape);
    } else if (op_is_unary(n.op)) {
      E.unary(op_unary(n.op), in(0), out, n.size());
    } else {
      switch (n.op) {
      case Op::Select: E.select_op(in(0), ish(0), in(1), ish(1), in(2), ish(2), out, n.shape); break;
      case Op::Sum: E.st(out, E.ix(0), E.sum_all(in(0), ish(0).size())); break;
      case Op::Mean: {
        RV s = E.sum_all(in(0), ish(0).size());
        E.st(out, E.ix(0), E.dop(GCC_JIT_BINARY_OP_DIVIDE, s, E.lit(double(ish(0).size()))));
        break;
      }
      case Op::Max: {
        LV bi, bv;
        E.argmax_line(in(0), E.ix(0), ish(0).size(), 1, bi, bv);
        E.st(out, E.ix(0), E.rv(bv));
        break;
      }
      case Op::SumAxis:
      case Op::MeanAxis:
      case Op::MaxAxis: E.axis_reduce(n.op, in(0), ish(0), n.axis, out); break;
      case Op::SumTo: E.sum_to(in(0), ish(0), out, n.shape); break;
      case Op::BroadcastTo:  // k_binary(Mul, x, 1.0)
        E.binary(BinaryOp::Mul, in(0), ish(0), Ref{nullptr, 1.0}, Shape{}, out, n.shape);
        break;
      case Op::Matmul: E.matmul(in(0), in(1), out, ish(0).dim[0], ish(0).dim[1], ish(1).dim[1]); break;
      case Op::Transpose: E.transpose(in(0), ish(0), n.perm, out, n.shape); break;
      case Op::Reshape: E.copy(in(0), out, n.size()); break;
      case Op::MaxMask: E.max_mask(in(0), ish(0), n.axis, out); break;
      case Op::Argmax: E.argmax_axis(in(0), ish(0), n.axis, out); break;
      case Op::Take:
      case Op::ScatterAdd: {
        int64_t at = 0;
        for (const KernelLayout::IndexCheck &c : L.index_checks)
          if (c.node == i) at = c.offset;
        RV status = gcc_jit_lvalue_get_address(E.elem(scratch, E.ix(at)), nullptr);
        if (n.op == Op::Take) E.take(in(0), ish(0), n.axis, in(1), ish(1).size(), out, status);
        else E.scatter_add(in(0), n.shape, n.axis, in(1), ish(1).size(), out, status);
        break;
      }
      case Op::Slice:
      case Op::Pad: {
        int64_t outer, len_out, inner, len_in = ish(0).dim[n.axis];
        axis_split(n.shape, n.axis, outer, len_out, inner);
        if (n.op == Op::Slice) {
          E.copy_along(in(0), len_in, n.offset, out, len_out, 0, len_out, outer, inner);
        } else {
          E.copy(Ref{nullptr, 0.0}, out, n.size());
          E.copy_along(in(0), len_in, 0, out, len_out, n.offset, len_in, outer, inner);
        }
        break;
      }
      case Op::Concat: {
        int64_t outer, len, inner, la = ish(0).dim[n.axis], lb = ish(1).dim[n.axis];
        axis_split(n.shape, n.axis, outer, len, inner);
        E.copy_along(in(0), la, 0, out, len, 0, la, outer, inner);
        E.copy_along(in(1), lb, 0, out, len, la, lb, outer, inner);
        break;
      }
      default: break;
      }
    }
  }
  // Outputs that did not write their result directly: copies.
  for (size_t o = 0; o < g.outputs.size(); o++) {
    int32_t nd = g.outputs[o].node;
    const KernelLayout::Slot &s = L.slots[size_t(nd)];
    if (s.place == KernelLayout::Place::Result && s.index == int32_t(o)) continue;
    E.copy(refs[size_t(nd)], result_ptr[o], g[nd].size());
  }
  gcc_jit_block_end_with_void_return(E.cur, nullptr);
}

void emit_matmul_function(gcc_jit_context *ctx, const char *name, int64_t m, int64_t k, int64_t n) {
  Emitter E(ctx);
  gcc_jit_param *ps[3] = {gcc_jit_context_new_param(ctx, nullptr, E.t_dptr, "a"),
                          gcc_jit_context_new_param(ctx, nullptr, E.t_dptr, "b"),
                          gcc_jit_context_new_param(ctx, nullptr, E.t_dptr, "c")};
  E.fn = gcc_jit_context_new_function(ctx, nullptr, GCC_JIT_FUNCTION_EXPORTED, E.t_void, name, 3, ps, 0);
  E.cur = gcc_jit_function_new_block(E.fn, "entry");
  E.matmul(Ref{gcc_jit_param_as_rvalue(ps[0])}, Ref{gcc_jit_param_as_rvalue(ps[1])},
           gcc_jit_param_as_rvalue(ps[2]), m, k, n);
  gcc_jit_block_end_with_void_return(E.cur, nullptr);
}

}  // namespace kiln

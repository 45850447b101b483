// codegen.cpp — emit_kernel: binds the plan's slots (kernel_plan.h) to the
// kernel's buffers and walks its steps, calling one lowering (kernel_emitter.h)
// per node, fused run or pair of sums.
#include "compiler/codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "compiler/kernel_emitter.h"
#include "compiler/kernel_units.h"
#include "compiler/loop.h"
#include "runtime/error.h"

namespace kiln {

using jit::Emitter;
using jit::LV;
using jit::Ref;
using jit::RV;

// One loop for a run of element-wise nodes over the same elements (steps
// marked fuse_next): each element goes through the same IEEE operations as in
// separate loops, but a value is stored only where the unit says so.
// The batch family being emitted (null: exact shapes), and whether a node's
// leading axis is n-long.
static thread_local const BatchFamily *t_family = nullptr;
static bool rows_of(int32_t node) { return t_family && t_family->batched(node); }

// Sets E.bat for one lowering and clears it after.
struct BatchedExtents {
  Emitter &E;
  BatchedExtents(Emitter &e, bool out, bool in, bool k) : E(e) { E.bat = Emitter::Extents{out, in, k}; }
  ~BatchedExtents() { E.bat = Emitter::Extents{}; }
};

// The graph function being emitted (the kernel, or a loop body's function):
// its plan and its `args` and `scratch` parameters, which a loop reads.
struct GraphFunction {
  const KernelLayout *layout;
  RV args, scratch;
};
static thread_local const GraphFunction *t_fn = nullptr;

static void emit_loop(Emitter &E, const Graph &g, const std::vector<Ref> &refs, int32_t i);

static void emit_fused_run(Emitter &E, const Graph &g, const std::vector<Ref> &refs, const KernelUnit &u) {
  const std::vector<int32_t> &run = u.nodes;
  auto in_run = [&](int32_t a) { return std::find(run.begin(), run.end(), a) != run.end(); };
  std::string note = "fused:";
  for (int32_t r : run) note += fmt::format(" {} {}", r, op_name(g[r].op));
  gcc_jit_block_add_comment(E.cur, nullptr, note.c_str());
  // The loop over [lo, hi) with the buffers of `bufs` at bases (par_loop).
  int64_t n = g[run[0]].size();
  std::vector<int32_t> bufs;
  std::vector<RV> bases;
  auto note_buffer = [&](int32_t a) {
    if (refs[size_t(a)].base && std::find(bufs.begin(), bufs.end(), a) == bufs.end()) {
      bufs.push_back(a);
      bases.push_back(refs[size_t(a)].base);
    }
  };
  for (size_t k = 0; k < run.size(); k++) {
    for (int q = 0; q < op_arity(g[run[k]].op); q++)
      if (!in_run(g[run[k]].in[q])) note_buffer(g[run[k]].in[q]);
    if (u.stored[k]) note_buffer(run[k]);
  }
  auto loop = [&](RV lo, RV hi, const std::vector<RV> &at) {
    std::vector<Ref> local_refs;  // refs, with the buffers at `at`
    auto ref = [&](int32_t a) -> Ref {
      auto it = std::find(bufs.begin(), bufs.end(), a);
      if (it == bufs.end()) return refs[size_t(a)];
      Ref r = refs[size_t(a)];
      r.base = at[size_t(it - bufs.begin())];
      return r;
    };
    std::map<int32_t, RV> scalars;  // one-element operands, read once before the loop
    for (int32_t r : run)
      for (int q = 0; q < op_arity(g[r].op); q++) {
        int32_t a = g[r].in[q];
        if (!in_run(a) && g[a].size() == 1 && !scalars.count(a)) scalars[a] = E.once(E.load(ref(a), E.ix(0)));
      }
    auto each = [&](RV t) {
      std::map<int32_t, RV> value;
      for (size_t k = 0; k < run.size(); k++) {
        int32_t r = run[k];
        const GraphNode &nd = g[r];
        auto operand = [&](int q) {
          int32_t a = nd.in[q];
          if (in_run(a)) return value[a];
          if (g[a].size() == 1) return scalars[a];
          return E.load(ref(a), t);
        };
        RV v;
        if (op_is_binary(nd.op)) v = E.scalar_binary(op_binary(nd.op), operand(0), operand(1));
        else if (op_is_unary(nd.op)) v = E.scalar_unary(op_unary(nd.op), operand(0));
        else if (nd.op == Op::Select)
          v = E.select(E.cmp(GCC_JIT_COMPARISON_NE, operand(0), E.lit(0.0)), operand(1), operand(2));
        else v = E.dop(GCC_JIT_BINARY_OP_MULT, operand(0), E.lit(1.0));  // BroadcastTo: k_binary(Mul, x, 1.0)
        v = E.once(v);
        value[r] = v;
        if (u.stored[k]) E.st(ref(r).base, t, v);
      }
    };
    if (at == bases) E.loop_x(0, n, 1, rows_of(run[0]), each);  // one loop, as it always was
    else E.loop_rt(lo, hi, 1, each);
  };
  // A batch family's n-long run stays one loop (its length is known at run time).
  if (rows_of(run[0])) loop(nullptr, nullptr, bases);
  else E.par_loop(n, bases, loop);
}

// A node's element count as a double (a mean's divisor): n-long in a family.
static RV element_count(Emitter &E, const Graph &g, int32_t node) {
  if (!rows_of(node)) return E.lit(double(g[node].size()));
  return E.once(gcc_jit_context_new_cast(E.c, nullptr, E.extent(g[node].size()), E.t_double));
}

// One or two serial sums, possibly riding in a host transpose's loop.
static void emit_sums(Emitter &E, const Graph &g, const std::vector<Ref> &refs, const KernelUnit &u) {
  const std::vector<int32_t> &sums = u.nodes;
  std::string note;
  for (int32_t s : sums) note += fmt::format("{}{} {}", note.empty() ? "" : " and ", s, op_name(g[s].op));
  if (u.host >= 0) note += fmt::format(" riding in {} {}", u.host, op_name(g[u.host].op));
  gcc_jit_block_add_comment(E.cur, nullptr, note.c_str());
  std::vector<Ref> xs;
  for (int32_t s : sums) xs.push_back(refs[size_t(g[s].in[0])]);
  int64_t len = g[g[sums[0]].in[0]].size();
  std::vector<RV> totals;
  bool rows = false, fixed = false;
  for (int32_t s : sums) (rows_of(g[s].in[0]) ? rows : fixed) = true;
  if (rows) {
    // n-long sums: the host transpose runs on its own (its band count is fixed),
    // and a fixed-length sum is not paired with them; each is still its own
    // chain in row-major order, so no bit changes.
    if (u.host >= 0) {
      const GraphNode &t = g[u.host];
      E.transpose2(refs[size_t(t.in[0])], t.shape.dim[0], t.shape.dim[1], refs[size_t(u.host)].base);
    }
    for (int32_t s : sums) {
      BatchedExtents b(E, false, rows_of(g[s].in[0]), false);
      totals.push_back(E.serial_sums({refs[size_t(g[s].in[0])]}, len, 0, nullptr)[0]);
    }
  } else if (u.host >= 0) {
    const GraphNode &t = g[u.host];
    totals = E.serial_sums(xs, len, transpose_band_iterations(t), [&](const std::function<void()> &each) {
      E.transpose2(refs[size_t(t.in[0])], t.shape.dim[0], t.shape.dim[1], refs[size_t(u.host)].base, &each);
    });
  } else {
    totals = E.serial_sums(xs, len, 0, nullptr);
  }
  for (size_t q = 0; q < sums.size(); q++) {
    const GraphNode &n = g[sums[q]];
    RV acc = totals[q];
    RV v = n.op == Op::Mean ? E.dop(GCC_JIT_BINARY_OP_DIVIDE, acc, element_count(E, g, n.in[0])) : acc;
    E.st(refs[size_t(sums[q])].base, E.ix(0), v);
  }
}

// One node's lowering (kernel_emitter.h), reading and writing through refs.
static void emit_node(Emitter &E, const Graph &g, const std::vector<Ref> &refs, int32_t i) {
  const GraphNode &n = g[i];
  gcc_jit_block_add_comment(E.cur, nullptr, (std::to_string(i) + " " + op_name(n.op)).c_str());
  RV out = refs[size_t(i)].base;
  auto in = [&](int q) -> const Ref & { return refs[size_t(n.in[q])]; };
  auto ish = [&](int q) -> const Shape & { return g[n.in[q]].shape; };
  // Batch families: the result's and first operand's leading axes, and a
  // matmul's inner length (its right operand's rows).
  BatchedExtents batched(
      E, rows_of(i), n.in[0] >= 0 && rows_of(n.in[0]),
      (n.op == Op::Matmul || n.op == Op::Take || n.op == Op::ScatterAdd) && rows_of(n.in[1]));
  switch (n.op) {
  KILN_BINARY_OP_CASES:
    E.binary(op_binary(n.op), in(0), ish(0), in(1), ish(1), out, n.shape);
    break;
  KILN_UNARY_OP_CASES:
    E.unary(op_unary(n.op), in(0), out, n.size());
    break;
  case Op::Param:
  case Op::Const: break;  // read in place or loaded where used
  case Op::Select: E.select_op(in(0), ish(0), in(1), ish(1), in(2), ish(2), out, n.shape); break;
  case Op::Sum: E.st(out, E.ix(0), E.sum_all(in(0), ish(0).size())); break;
  case Op::Mean: {
    RV s = E.sum_all(in(0), ish(0).size());
    E.st(out, E.ix(0), E.dop(GCC_JIT_BINARY_OP_DIVIDE, s, element_count(E, g, n.in[0])));
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
  case Op::Matmul: {
    int r = n.shape.rank;
    int64_t m = ish(0).dim[r - 2], k = ish(0).dim[r - 1], nn = ish(1).dim[r - 1];
    int64_t items = n.size() / (m * nn);
    if (items == 1) {
      E.matmul(in(0), in(1), out, m, k, nn);
      break;
    }
    // One matrix product per batch item, in order (k_matmul_batched).
    E.loop(0, items, 1, [&](RV b) {
      auto at = [&](RV base, int64_t stride) {
        return E.rv(E.local_init(E.t_dptr, "mb",
                                 gcc_jit_lvalue_get_address(E.elem(base, E.imul(b, stride)), nullptr)));
      };
      Ref ai = in(0), bi = in(1);
      ai.base = at(ai.base, m * k);
      bi.base = at(bi.base, k * nn);
      E.matmul(ai, bi, at(out, m * nn), m, k, nn);
    });
    break;
  }
  case Op::Transpose: E.transpose(in(0), ish(0), n.perm, out, n.shape); break;
  case Op::Reshape: E.copy(in(0), out, n.size()); break;
  case Op::MaxMask: E.max_mask(in(0), ish(0), n.axis, out); break;
  case Op::Argmax: E.argmax_axis(in(0), ish(0), n.axis, out); break;
  case Op::Allreduce: E.allreduce(in(0), out, n.size(), n.axis, uint64_t(n.offset)); break;
  case Op::Loop: emit_loop(E, g, refs, i); break;
  case Op::Take: E.take(in(0), ish(0), n.axis, in(1), ish(1).size(), out, refs[size_t(i)].status); break;
  case Op::ScatterAdd:
    E.scatter_add(in(0), n.shape, n.axis, in(1), ish(1).size(), out, refs[size_t(i)].status);
    break;
  case Op::Random: E.random(RandomKind(n.axis), in(0), out, n.size(), refs[size_t(i)].status); break;
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
  }
}

static void emit_unit(Emitter &E, const Graph &g, const std::vector<Ref> &refs, const KernelUnit &u) {
  switch (u.kind) {
  case KernelUnit::Kind::Run: emit_fused_run(E, g, refs, u); break;
  case KernelUnit::Kind::Sums: emit_sums(E, g, refs, u); break;
  case KernelUnit::Kind::Node: emit_node(E, g, refs, u.nodes[0]); break;
  }
}

// A unit whose signature recurs: the first time, its lowering becomes the body
// of `static void unitN(double *s0, ..., double *sK, [double *status,] par)`
// with its slots' buffers (and a Take or ScatterAdd node's index status, which
// is no slot) as parameters; every time, the kernel calls that function with
// this unit's buffers. refs is restored before returning.
static void emit_shared_unit(Emitter &E, const Graph &g, std::vector<Ref> &refs, const KernelUnit &u,
                             const std::function<RV(int32_t)> &buffer_of,
                             std::map<std::string, gcc_jit_function *> &functions) {
  // In a family, which of the unit's nodes and slots are n-long is part of what it computes.
  std::string key = u.signature;
  if (t_family) {
    key += " rows:";
    for (int32_t a : u.nodes) key += rows_of(a) ? '1' : '0';
    key += '/';
    for (int32_t a : u.slots) key += rows_of(a) ? '1' : '0';
    for (int32_t a : u.nodes)
      for (int q = 0; q < op_arity(g[a].op); q++)
        if (int64_t k = t_family->scale[size_t(g[a].in[q])])
          key += fmt::format(" {}:{:a}/{}n", q, t_family->numer[size_t(g[a].in[q])], k);
  }
  gcc_jit_function *&fn = functions[key];
  // Only Node units hold a Take, ScatterAdd or Random; its signature says which op it is.
  int32_t checked = u.kind == KernelUnit::Kind::Node && refs[size_t(u.nodes[0])].status ? u.nodes[0] : -1;
  if (!fn) {
    std::vector<gcc_jit_param *> ps;
    for (size_t k = 0; k < u.slots.size(); k++)
      ps.push_back(gcc_jit_context_new_param(E.c, nullptr, E.t_dptr, fmt::format("s{}", k).c_str()));
    if (checked >= 0) ps.push_back(gcc_jit_context_new_param(E.c, nullptr, E.t_dptr, "status"));
    if (t_family) ps.push_back(gcc_jit_context_new_param(E.c, nullptr, E.t_long, "rows"));
    ps.push_back(gcc_jit_context_new_param(E.c, nullptr, E.t_par_fn, "par"));
    std::string name = E.fresh("kiln_unit");
    fn = gcc_jit_context_new_function(E.c, nullptr, GCC_JIT_FUNCTION_INTERNAL, E.t_void, name.c_str(),
                                      int(ps.size()), ps.data(), 0);
    gcc_jit_function *saved_fn = E.fn;
    gcc_jit_block *saved_cur = E.cur;
    RV saved_par = E.par, saved_rows = E.rows;
    std::vector<RV> saved_bases;
    E.fn = fn;
    E.cur = gcc_jit_function_new_block(fn, "entry");
    E.par = gcc_jit_param_as_rvalue(ps.back());
    if (t_family) E.rows = gcc_jit_param_as_rvalue(ps[ps.size() - 2]);
    for (size_t k = 0; k < u.slots.size(); k++) {
      Ref &r = refs[size_t(u.slots[k])];
      saved_bases.push_back(r.base);
      r.base = gcc_jit_param_as_rvalue(ps[k]);
    }
    RV saved_status = checked >= 0 ? refs[size_t(checked)].status : nullptr;
    if (checked >= 0) refs[size_t(checked)].status = gcc_jit_param_as_rvalue(ps[u.slots.size()]);
    gcc_jit_block_add_comment(E.cur, nullptr, u.signature.c_str());
    emit_unit(E, g, refs, u);
    gcc_jit_block_end_with_void_return(E.cur, nullptr);
    for (size_t k = 0; k < u.slots.size(); k++) refs[size_t(u.slots[k])].base = saved_bases[k];
    if (checked >= 0) refs[size_t(checked)].status = saved_status;
    E.fn = saved_fn;
    E.cur = saved_cur;
    E.par = saved_par;
    E.rows = saved_rows;
  }
  std::vector<RV> args;
  for (int32_t a : u.slots) args.push_back(buffer_of(a));
  if (checked >= 0) args.push_back(refs[size_t(checked)].status);
  if (t_family) args.push_back(E.rows);
  args.push_back(E.par);
  gcc_jit_block_add_eval(E.cur, nullptr,
                         gcc_jit_context_new_call(E.c, nullptr, fn, int(args.size()), args.data()));
}

// The code of graph `g` planned as L, into E's current function from its
// current block, reading its buffers through args, results and scratch
// (kernel_plan.h's signature).
static void emit_graph(Emitter &E, const Graph &g, const KernelLayout &L, RV args, RV results, RV scratch) {
  GraphFunction self{&L, args, scratch};
  struct Scope {
    const GraphFunction *outer = t_fn;
    ~Scope() { t_fn = outer; }
  } scope;
  t_fn = &self;
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
    case KernelLayout::Place::ConstScalar:
      r.scalar = g[i].scalar;
      if (t_family) {
        r.scale = t_family->scale[size_t(i)];
        r.numer = t_family->numer[size_t(i)];
      }
      break;
    case KernelLayout::Place::Scratch:
      r.base = gcc_jit_lvalue_get_address(E.elem(scratch, E.ix(s.offset)), nullptr);
      break;
    case KernelLayout::Place::Result: r.base = result_ptr[size_t(s.index)]; break;
    }
  }
  // Only this graph's own checks: those of its loop bodies (graph set) name nodes
  // of the body, and their statuses are copied out by the loop (emit_loop).
  for (const KernelLayout::IndexCheck &c : L.index_checks)
    if (!c.graph)
      refs[size_t(c.node)].status = gcc_jit_lvalue_get_address(E.elem(scratch, E.ix(c.offset)), nullptr);

  // Matmul-operand transposes are not materialised: their matmuls read the input
  // in place (left: a[i][kk] = x[kk][i], the broadcast operand is loaded one
  // element at a time anyway; right: b[kk][j] = x[j][kk], gathered into a pack
  // per stripe, Emitter::pack_transposed).
  const std::vector<bool> &read_in_place = L.read_in_place;
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    if (!read_in_place[size_t(i)]) continue;
    Ref &r = refs[size_t(i)];
    r = refs[size_t(n.in[0])];
    r.transposed = true;
    r.ld = n.shape.dim[0];  // the input is k x m (left) or n x k (right)
  }

  // A call's buffers are loaded from args/results where the call is, not
  // taken from the locals above: hundreds of calls keeping those locals live
  // across the whole kernel made register allocation superlinear.
  auto buffer_of = [&](int32_t a) -> RV {
    int32_t owner = read_in_place[size_t(a)] ? g[a].in[0] : a;
    const KernelLayout::Slot &s = L.slots[size_t(owner)];
    switch (s.place) {
    case KernelLayout::Place::Arg:
    case KernelLayout::Place::ConstTensor: return E.ld(args, E.ix(s.index));
    case KernelLayout::Place::Result: return E.ld(results, E.ix(s.index));
    default: return refs[size_t(owner)].base;
    }
  };
  const std::vector<KernelUnit> &units = L.units;
  std::vector<bool> shared = shared_units(units);
  // GCC would inline the shared functions back into the kernel (cloning each
  // per call site first), compiling their bodies once per call again: a
  // 32-layer MLP's kernel took 2x the CPU time with inlining. Nothing else in a
  // kernel is called directly, so this costs the other kernels nothing.
  if (std::find(shared.begin(), shared.end(), true) != shared.end())
    gcc_jit_context_add_command_line_option(E.c, "-fno-inline");
  std::map<std::string, gcc_jit_function *> functions;
  for (size_t k = 0; k < units.size(); k++) {
    if (shared[k]) emit_shared_unit(E, g, refs, units[k], buffer_of, functions);
    else emit_unit(E, g, refs, units[k]);
  }
  // Outputs that did not write their result directly: copies.
  for (size_t o = 0; o < g.outputs.size(); o++) {
    int32_t nd = g.outputs[o].node;
    const KernelLayout::Slot &s = L.slots[size_t(nd)];
    if (s.place == KernelLayout::Place::Result && s.index == int32_t(o)) continue;
    BatchedExtents batched(E, rows_of(nd), false, false);
    E.copy(refs[size_t(nd)], result_ptr[o], g[nd].size());
  }
}

// ---- loops (loop.h) ------------------------------------------------------------

// `static void kiln_loop_bodyN(double **args, double **results, double *scratch,
// par)`: graph g (a loop's body or cond) planned as L, emitted once; the loop
// calls it once per step. Exact shapes: a loop never takes part in a batch
// family (family_lowerable refuses it).
static gcc_jit_function *emit_loop_function(Emitter &E, const Graph &g, const KernelLayout &L) {
  gcc_jit_param *ps[4] = {gcc_jit_context_new_param(E.c, nullptr, E.t_dpp, "args"),
                          gcc_jit_context_new_param(E.c, nullptr, E.t_dpp, "results"),
                          gcc_jit_context_new_param(E.c, nullptr, E.t_dptr, "scratch"),
                          gcc_jit_context_new_param(E.c, nullptr, E.t_par_fn, "par")};
  std::string name = E.fresh("kiln_loop_body");
  gcc_jit_function *fn =
      gcc_jit_context_new_function(E.c, nullptr, GCC_JIT_FUNCTION_INTERNAL, E.t_void, name.c_str(), 4, ps, 0);
  struct Saved {
    Emitter &E;
    gcc_jit_function *fn = E.fn;
    gcc_jit_block *cur = E.cur;
    RV par = E.par, rows = E.rows;
    int64_t planned_rows = E.planned_rows;
    Emitter::Extents bat = E.bat;
    const BatchFamily *family = t_family;
    ~Saved() {
      E.fn = fn;
      E.cur = cur;
      E.par = par;
      E.rows = rows;
      E.planned_rows = planned_rows;
      E.bat = bat;
      t_family = family;
    }
  } saved{E};
  E.fn = fn;
  E.cur = gcc_jit_function_new_block(fn, "entry");
  E.par = gcc_jit_param_as_rvalue(ps[3]);
  E.rows = nullptr;
  E.planned_rows = 0;
  E.bat = Emitter::Extents{};
  t_family = nullptr;
  emit_graph(E, g, L, gcc_jit_param_as_rvalue(ps[0]), gcc_jit_param_as_rvalue(ps[1]),
             gcc_jit_param_as_rvalue(ps[2]));
  gcc_jit_block_end_with_void_return(E.cur, nullptr);
  return fn;
}

// A local array of `count` pointers (at least one) and its first element's address.
struct PointerArray {
  RV array, first;
};
static PointerArray pointer_array(Emitter &E, size_t count, const char *name) {
  gcc_jit_type *t = gcc_jit_context_new_array_type(E.c, nullptr, E.t_dptr, int(count ? count : 1));
  RV a = E.rv(E.local(t, name));
  return {a, gcc_jit_lvalue_get_address(E.elem(a, E.ix(0)), nullptr)};
}

// Loop node i, as run_loop runs it: the body's function called once per step
// on two carry buffers in turn (the step reads one and writes the other), its
// params pointed at the step index, the carry leaves, this step's XS slices and
// the captured values, its outputs at the other carry buffer and this step's
// slices of the stacked Ys. A while-loop calls its cond's function first; a
// step whose body or cond flags a bad index or key ends the loop with the
// statuses lifted into the kernel's (kernel_plan.h, LoopPlan). Every 16th
// step polls for Ctrl-C through `par`.
static void emit_loop(Emitter &E, const Graph &g, const std::vector<Ref> &refs, int32_t i) {
  const GraphFunction &F = *t_fn;
  const GraphNode &n = g[i];
  const LoopBody &B = *n.loop;
  const KernelLayout::LoopPlan *plan = nullptr;
  for (const KernelLayout::LoopPlan &p : F.layout->loops)
    if (p.node == i) plan = &p;
  if (!plan) throw_errorf("jit: internal error: loop node {} has no plan", i);
  const KernelLayout::LoopPlan &P = *plan;
  const size_t nc = B.carry.size(), nx = B.xs.size(), ny = B.ys.size(), ncap = B.captures.size();
  const int64_t C = B.carry_size(), trips = B.trips;
  const bool is_while = B.kind == LoopKind::While;
  auto address = [&](RV base, RV at) { return gcc_jit_lvalue_get_address(E.elem(base, at), nullptr); };
  auto scratch_at = [&](int64_t off) { return address(F.scratch, E.ix(off)); };
  auto dptr = [&](const char *name, RV init) { return E.local_init(E.t_dptr, name, init); };

  // Offsets of the leaves in the packed carry, consts and result (loop.h).
  std::vector<int64_t> carry_at(nc), cap_at(ncap), x_at(nx), y_at(ny), save_at(nc);
  int64_t at = 0;
  for (size_t k = 0; k < nc; k++, at += B.carry[k - 1].shape.size()) carry_at[k] = at;
  at = 0;
  for (size_t k = 0; k < ncap; k++, at += B.captures[k - 1].shape.size()) cap_at[k] = at;
  for (size_t k = 0; k < nx; k++, at += B.xs[k - 1].shape.size() * trips) x_at[k] = at;
  at = C;
  for (size_t k = 0; k < ny; k++, at += B.ys[k - 1].shape.size() * trips) y_at[k] = at;
  for (size_t k = 0; k < nc; k++, at += B.carry[k - 1].shape.size() * trips) save_at[k] = at;

  gcc_jit_block_add_comment(E.cur, nullptr,
                            fmt::format("{} {}: {} trips", i, loop_kind_name(B.kind), trips).c_str());
  gcc_jit_function *body_fn = emit_loop_function(E, *B.body, *P.body);
  gcc_jit_function *cond_fn = P.cond ? emit_loop_function(E, *B.cond, *P.cond) : nullptr;

  RV out = E.rv(dptr("loop_out", refs[size_t(i)].base));
  LV cur = dptr("carry", scratch_at(P.carries)),
     next = dptr("carry", scratch_at(P.carries + (C + 7) / 8 * 8));
  E.copy(refs[size_t(n.in[0])], E.rv(cur), C);
  RV consts = refs[size_t(n.in[1])].base;
  if (!consts) {
    consts = scratch_at(P.consts_copy);
    E.copy(refs[size_t(n.in[1])], consts, g[n.in[1]].size());
  }
  consts = E.rv(dptr("consts", consts));
  const size_t body_checks = P.body->index_checks.size();
  const size_t checks = body_checks + (P.cond ? P.cond->index_checks.size() : 0);
  for (size_t k = 0; k < checks; k++) {
    int64_t off = F.layout->index_checks[P.check_first + k].offset;
    E.st(F.scratch, E.ix(off), E.lit(0.0));
    E.st(F.scratch, E.ix(off + 1), E.lit(0.0));
  }

  LV index = E.local(E.t_double, "loop_index");
  LV go = E.local(E.t_double, "loop_go");
  LV s = E.local_init(E.t_long, "loop_step", E.ix(0));
  RV index_ptr = gcc_jit_lvalue_get_address(index, nullptr);
  // A function's args: the params (index, carry, xs, captures) then its constants.
  auto args_for = [&](const Graph &fg, const KernelLayout &fl, int32_t first_const, const char *name) {
    size_t np = size_t(std::max<int>(fg.num_params, int(1 + nc + nx + ncap)));
    size_t nk = fl.const_nodes.size() + fl.loop_consts.size();
    PointerArray a = pointer_array(E, np + nk, name);
    E.st(a.array, E.ix(0), index_ptr);
    for (size_t k = 0; k < ncap; k++)
      E.st(a.array, E.ix(int64_t(1 + nc + nx + k)), address(consts, E.ix(cap_at[k])));
    for (size_t k = 0; k < nk; k++)
      E.st(a.array, E.ix(int64_t(np + k)), E.ld(F.args, E.ix(int64_t(first_const) + int64_t(k))));
    return a;
  };
  auto point_carries = [&](const PointerArray &a) {
    for (size_t k = 0; k < nc; k++)
      E.st(a.array, E.ix(int64_t(1 + k)), address(E.rv(cur), E.ix(carry_at[k])));
  };
  PointerArray body_args = args_for(*B.body, *P.body, P.body_consts, "body_args");
  PointerArray body_results = pointer_array(E, nc + ny, "body_results");
  PointerArray cond_args{}, cond_results{};
  if (cond_fn) {
    cond_args = args_for(*B.cond, *P.cond, P.cond_consts, "cond_args");
    cond_results = pointer_array(E, 1, "cond_results");
    E.st(cond_results.array, E.ix(0), gcc_jit_lvalue_get_address(go, nullptr));
  }

  gcc_jit_block *head = E.block("loop_head"), *step = E.block("loop_body"), *done = E.block("loop_done");
  // After a call: a flagged status in the function's scratch copies every
  // lifted status out and leaves the loop.
  auto check_faults = [&](size_t first, size_t count, int64_t sub_scratch, const KernelLayout &sub) {
    if (count == 0) return;
    gcc_jit_block *fault = E.block("loop_fault");
    for (size_t k = 0; k < count; k++) {
      gcc_jit_block *ok = E.block("loop_ok");
      RV flag = E.ld(F.scratch, E.ix(sub_scratch + sub.index_checks[k].offset));
      gcc_jit_block_end_with_conditional(E.cur, nullptr, E.cmp(GCC_JIT_COMPARISON_NE, flag, E.lit(0.0)),
                                         fault, ok);
      E.cur = ok;
    }
    gcc_jit_block *ok = E.cur;
    E.cur = fault;
    for (size_t k = 0; k < count; k++) {
      int64_t from = sub_scratch + sub.index_checks[k].offset;
      int64_t to = F.layout->index_checks[P.check_first + first + k].offset;
      E.st(F.scratch, E.ix(to), E.ld(F.scratch, E.ix(from)));
      E.st(F.scratch, E.ix(to + 1), E.ld(F.scratch, E.ix(from + 1)));
    }
    gcc_jit_block_end_with_jump(E.cur, nullptr, done);
    E.cur = ok;
  };
  auto call = [&](gcc_jit_function *fn, const PointerArray &a, const PointerArray &r, int64_t sub_scratch) {
    RV call_args[4] = {a.first, r.first, scratch_at(sub_scratch), E.par};
    gcc_jit_block_add_eval(E.cur, nullptr, gcc_jit_context_new_call(E.c, nullptr, fn, 4, call_args));
  };

  gcc_jit_block_end_with_jump(E.cur, nullptr, head);
  E.cur = head;
  if (!is_while) {
    gcc_jit_block_end_with_conditional(E.cur, nullptr, E.cmp(GCC_JIT_COMPARISON_LT, E.rv(s), E.ix(trips)),
                                       step, done);
  } else {
    E.assign(index, gcc_jit_context_new_cast(E.c, nullptr, E.rv(s), E.t_double));
    point_carries(cond_args);
    call(cond_fn, cond_args, cond_results, P.cond_scratch);
    check_faults(body_checks, checks - body_checks, P.cond_scratch, *P.cond);
    gcc_jit_block_end_with_conditional(E.cur, nullptr, E.cmp(GCC_JIT_COMPARISON_NE, E.rv(go), E.lit(0.0)),
                                       step, done);
  }
  E.cur = step;
  RV t = B.reverse ? E.once_long(gcc_jit_context_new_binary_op(E.c, nullptr, GCC_JIT_BINARY_OP_MINUS,
                                                               E.t_long, E.ix(trips - 1), E.rv(s)))
                   : E.rv(s);
  E.assign(index, gcc_jit_context_new_cast(E.c, nullptr, t, E.t_double));
  point_carries(body_args);
  for (size_t k = 0; k < nx; k++)
    E.st(body_args.array, E.ix(int64_t(1 + nc + k)),
         address(consts, E.iadd(E.ix(x_at[k]), E.imul(t, B.xs[k].shape.size()))));
  for (size_t k = 0; k < nc; k++)
    E.st(body_results.array, E.ix(int64_t(k)), address(E.rv(next), E.ix(carry_at[k])));
  for (size_t k = 0; k < ny; k++)
    E.st(body_results.array, E.ix(int64_t(nc + k)),
         address(out, E.iadd(E.ix(y_at[k]), E.imul(t, B.ys[k].shape.size()))));
  if (B.save_carries)
    for (size_t k = 0; k < nc; k++) {
      int64_t size = B.carry[k].shape.size();
      RV to = E.rv(dptr("saved", address(out, E.iadd(E.ix(save_at[k]), E.imul(t, size)))));
      RV from = E.rv(dptr("carry_leaf", address(E.rv(cur), E.ix(carry_at[k]))));
      E.copy(Ref{from}, to, size);
    }
  call(body_fn, body_args, body_results, P.body_scratch);
  check_faults(0, body_checks, P.body_scratch, *P.body);
  // Ctrl-C: every 16th step asks `par` to run one chunk that sets `polled`.
  // kernel_par starts no chunk once an interrupt is pending, so the loop ends
  // there and the call raises it (apply_kernel's check_interrupt).
  {
    gcc_jit_param *pp[2] = {gcc_jit_context_new_param(E.c, nullptr, E.t_voidp, "ctx"),
                            gcc_jit_context_new_param(E.c, nullptr, E.t_long, "chunk")};
    std::string name = E.fresh("kiln_loop_poll");
    gcc_jit_function *poll = gcc_jit_context_new_function(E.c, nullptr, GCC_JIT_FUNCTION_INTERNAL, E.t_void,
                                                          name.c_str(), 2, pp, 0);
    gcc_jit_block *entry = gcc_jit_function_new_block(poll, "entry");
    RV flag = gcc_jit_context_new_cast(E.c, nullptr, gcc_jit_param_as_rvalue(pp[0]), E.t_dptr);
    gcc_jit_block_add_assignment(entry, nullptr, gcc_jit_rvalue_dereference(flag, nullptr), E.lit(1.0));
    gcc_jit_block_end_with_void_return(entry, nullptr);
    LV polled = E.local(E.t_double, "loop_polled");
    gcc_jit_block *ask = E.block("loop_poll"), *go_on = E.block("loop_next");
    RV sixteenth = gcc_jit_context_new_binary_op(E.c, nullptr, GCC_JIT_BINARY_OP_BITWISE_AND, E.t_long,
                                                 E.rv(s), E.ix(15));
    gcc_jit_block_end_with_conditional(E.cur, nullptr, E.cmp(GCC_JIT_COMPARISON_EQ, sixteenth, E.ix(15)), ask,
                                       go_on);
    E.cur = ask;
    E.assign(polled, E.lit(0.0));
    RV poll_args[3] = {
        E.ix(1), gcc_jit_function_get_address(poll, nullptr),
        gcc_jit_context_new_cast(E.c, nullptr, gcc_jit_lvalue_get_address(polled, nullptr), E.t_voidp)};
    gcc_jit_block_add_eval(E.cur, nullptr,
                           gcc_jit_context_new_call_through_ptr(E.c, nullptr, E.par, 3, poll_args));
    gcc_jit_block_end_with_conditional(E.cur, nullptr, E.cmp(GCC_JIT_COMPARISON_NE, E.rv(polled), E.lit(0.0)),
                                       go_on, done);
    E.cur = go_on;
  }
  LV held = dptr("held", E.rv(cur));
  E.assign(cur, E.rv(next));
  E.assign(next, E.rv(held));
  gcc_jit_block_add_assignment_op(E.cur, nullptr, s, GCC_JIT_BINARY_OP_PLUS, E.ix(1));
  gcc_jit_block_end_with_jump(E.cur, nullptr, head);
  E.cur = done;
  E.copy(Ref{E.rv(cur)}, out, C);
}

void emit_kernel(gcc_jit_context *ctx, const Graph &g, const KernelLayout &L, const BatchFamily *family) {
  Emitter E(ctx);
  t_family = family && family->rows > 0 ? family : nullptr;
  struct Reset {
    ~Reset() { t_family = nullptr; }
  } reset;
  gcc_jit_param *params[4] = {gcc_jit_context_new_param(ctx, nullptr, E.t_dpp, "args"),
                              gcc_jit_context_new_param(ctx, nullptr, E.t_dpp, "results"),
                              gcc_jit_context_new_param(ctx, nullptr, E.t_dptr, "scratch"),
                              gcc_jit_context_new_param(ctx, nullptr, E.t_par_fn, "par")};
  E.fn = gcc_jit_context_new_function(ctx, nullptr, GCC_JIT_FUNCTION_EXPORTED, E.t_void, kKernelFunction, 4,
                                      params, 0);
  E.par = gcc_jit_param_as_rvalue(params[3]);
  E.cur = gcc_jit_function_new_block(E.fn, "entry");
  RV args = gcc_jit_param_as_rvalue(params[0]);
  if (t_family) {  // n, a double after the parameters and tensor constants
    RV at = E.ld(args, E.ix(int64_t(g.num_params) + int64_t(L.const_nodes.size() + L.loop_consts.size())));
    E.rows = E.once_long(gcc_jit_context_new_cast(ctx, nullptr, E.ld(at, E.ix(0)), E.t_long));
    E.planned_rows = t_family->rows;
  }
  emit_graph(E, g, L, args, gcc_jit_param_as_rvalue(params[1]), gcc_jit_param_as_rvalue(params[2]));
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

// codegen.cpp — one lowering per graph op, each reproducing the summation order
// of its runtime/kernels.h kernel (see codegen.h).
#include "codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>

#include "jit_context.h"

namespace kiln {

KernelLayout plan_kernel(const Graph &g) {
  KernelLayout L;
  L.num_params = g.num_params;
  L.slots.resize(size_t(g.size()));
  std::vector<bool> is_result(size_t(g.size()), false);
  for (size_t o = 0; o < g.outputs.size(); o++) {
    int32_t nd = g.outputs[o].node;
    Op op = g[nd].op;
    // A node computed by the kernel writes straight into its first result; any
    // other output of it (or an output that is a parameter/constant) is copied.
    if (op != Op::Param && op != Op::Const && !is_result[size_t(nd)]) {
      is_result[size_t(nd)] = true;
      L.slots[size_t(nd)] = {KernelLayout::Place::Result, int32_t(o), 0};
    }
  }
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    KernelLayout::Slot &s = L.slots[size_t(i)];
    if (n.op == Op::Param) {
      s = {KernelLayout::Place::Arg, n.param_index, 0};
    } else if (n.op == Op::Const) {
      if (n.const_data) {
        s = {KernelLayout::Place::ConstTensor, int32_t(g.num_params + int32_t(L.const_nodes.size())), 0};
        L.const_nodes.push_back(i);
      } else {
        s = {KernelLayout::Place::ConstScalar, 0, 0};
      }
    } else if (!is_result[size_t(i)]) {
      s = {KernelLayout::Place::Scratch, 0, L.scratch_doubles};
      L.scratch_doubles += (n.size() + 7) / 8 * 8;  // keep every buffer 64-byte aligned
    }
  }
  return L;
}

std::string graph_canonical_text(const Graph &g) {
  // fmt rather than string operator+: GCC 12 warns falsely (-Wrestrict) on
  // `" " + std::to_string(...)`.
  std::string t = fmt::format("params {}\n", g.num_params);
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    fmt::format_to(std::back_inserter(t), "{} {} {} {}", i, op_name(n.op), shape_string(n.shape),
                   n.is_number ? "num" : "ten");
    for (int q = 0; q < op_arity(n.op); q++) fmt::format_to(std::back_inserter(t), " {}", n.in[q]);
    if (n.op == Op::Param) fmt::format_to(std::back_inserter(t), " p{}", n.param_index);
    if (n.op == Op::SumAxis || n.op == Op::MeanAxis || n.op == Op::MaxAxis || n.op == Op::MaxMask ||
        n.op == Op::Slice || n.op == Op::Pad || n.op == Op::Concat)
      fmt::format_to(std::back_inserter(t), " axis {}{}", int(n.axis), n.keepdims ? " keep" : "");
    if (n.op == Op::Slice || n.op == Op::Pad) fmt::format_to(std::back_inserter(t), " at {}", n.offset);
    if (n.op == Op::Transpose) {
      t += " perm";
      for (int d = 0; d < n.shape.rank; d++) fmt::format_to(std::back_inserter(t), " {}", int(n.perm[d]));
    }
    if (n.op == Op::Const) {
      if (n.const_data) {
        t += " tensor-arg";
      } else {
        uint64_t bits;
        std::memcpy(&bits, &n.scalar, 8);
        fmt::format_to(std::back_inserter(t), " {:016x}", bits);
      }
    }
    t += '\n';
  }
  t += "outputs";
  for (const GraphOutput &o : g.outputs)
    fmt::format_to(std::back_inserter(t), " {}{}", o.node, o.as_number ? 'n' : 't');
  t += '\n';
  return t;
}

namespace {

using RV = gcc_jit_rvalue *;
using LV = gcc_jit_lvalue *;

// Where an operand's elements come from: a buffer, or one scalar literal that
// stands for every element (a scalar Const of any shape).
struct Ref {
  RV base = nullptr;
  double scalar = 0.0;
  // Only for a matmul's left operand: the buffer holds the operand's transpose
  // (k x m, row length `ld` = m), read in place instead of copied.
  bool transposed = false;
  int64_t ld = 0;
};

// Rows of a rank-2 transpose's output written together (Emitter::transpose2).
constexpr int64_t kTransposeBand = 8;

struct Emitter {
  gcc_jit_context *c;
  gcc_jit_function *fn = nullptr;
  gcc_jit_block *cur = nullptr;
  gcc_jit_type *t_void, *t_double, *t_long, *t_int, *t_bool, *t_dptr, *t_dpp, *t_vec, *t_vecu, *t_vecu_ptr;
  gcc_jit_type *t_voidp, *t_chunk_fn, *t_par_fn;
  RV par = nullptr;  // the kernel's `par` parameter; null: every matmul is serial
  int vw;
  int counter = 0;

  explicit Emitter(gcc_jit_context *ctx) : c(ctx) {
    t_void = gcc_jit_context_get_type(c, GCC_JIT_TYPE_VOID);
    t_double = gcc_jit_context_get_type(c, GCC_JIT_TYPE_DOUBLE);
    t_long = gcc_jit_context_get_type(c, GCC_JIT_TYPE_LONG);
    t_int = gcc_jit_context_get_type(c, GCC_JIT_TYPE_INT);
    t_bool = gcc_jit_context_get_type(c, GCC_JIT_TYPE_BOOL);
    t_dptr = gcc_jit_type_get_pointer(t_double);
    t_dpp = gcc_jit_type_get_pointer(t_dptr);
    vw = jit_vector_doubles();
    t_vec = gcc_jit_type_get_vector(t_double, size_t(vw));
    // Loads and stores go through an 8-byte-aligned copy of the vector type:
    // rows of a matrix start at any multiple of 8 bytes.
    t_vecu = gcc_jit_type_get_aligned(t_vec, 8);
    t_vecu_ptr = gcc_jit_type_get_pointer(t_vecu);
    t_voidp = gcc_jit_context_get_type(c, GCC_JIT_TYPE_VOID_PTR);
    gcc_jit_type *chunk_params[2] = {t_voidp, t_long};
    t_chunk_fn = gcc_jit_context_new_function_ptr_type(c, nullptr, t_void, 2, chunk_params, 0);
    gcc_jit_type *par_params[3] = {t_long, t_chunk_fn, t_voidp};
    t_par_fn = gcc_jit_context_new_function_ptr_type(c, nullptr, t_void, 3, par_params, 0);
  }

  std::string fresh(const char *prefix) { return fmt::format("{}{}", prefix, counter++); }
  RV lit(double x) { return gcc_jit_context_new_rvalue_from_double(c, t_double, x); }
  RV ix(int64_t i) { return gcc_jit_context_new_rvalue_from_long(c, t_long, long(i)); }
  RV rv(LV l) { return gcc_jit_lvalue_as_rvalue(l); }
  RV iadd(RV a, RV b) {
    return gcc_jit_context_new_binary_op(c, nullptr, GCC_JIT_BINARY_OP_PLUS, t_long, a, b);
  }
  RV imul(RV a, int64_t k) {
    if (k == 1) return a;
    return gcc_jit_context_new_binary_op(c, nullptr, GCC_JIT_BINARY_OP_MULT, t_long, a, ix(k));
  }
  RV iaddk(RV a, int64_t k) { return k == 0 ? a : iadd(a, ix(k)); }
  RV dop(enum gcc_jit_binary_op op, RV a, RV b, gcc_jit_type *t = nullptr) {
    return gcc_jit_context_new_binary_op(c, nullptr, op, t ? t : t_double, a, b);
  }
  RV cmp(enum gcc_jit_comparison op, RV a, RV b) {
    return gcc_jit_context_new_comparison(c, nullptr, op, a, b);
  }
  RV bool_to_double(RV b) {
    return gcc_jit_context_new_cast(c, nullptr, gcc_jit_context_new_cast(c, nullptr, b, t_int), t_double);
  }

  LV local(gcc_jit_type *t, const char *prefix) {
    return gcc_jit_function_new_local(fn, nullptr, t, fresh(prefix).c_str());
  }
  LV local_init(gcc_jit_type *t, const char *prefix, RV init) {
    LV l = local(t, prefix);
    assign(l, init);
    return l;
  }
  void assign(LV l, RV v) { gcc_jit_block_add_assignment(cur, nullptr, l, v); }
  gcc_jit_block *block(const char *prefix) { return gcc_jit_function_new_block(fn, fresh(prefix).c_str()); }

  LV elem(RV base, RV i) { return gcc_jit_context_new_array_access(c, nullptr, base, i); }
  RV ld(RV base, RV i) { return rv(elem(base, i)); }
  void st(RV base, RV i, RV v) { assign(elem(base, i), v); }
  RV load(const Ref &r, RV i) { return r.base ? ld(r.base, i) : lit(r.scalar); }

  LV vslot(RV base, RV i) {
    RV addr = gcc_jit_lvalue_get_address(elem(base, i), nullptr);
    return gcc_jit_rvalue_dereference(gcc_jit_context_new_cast(c, nullptr, addr, t_vecu_ptr), nullptr);
  }
  RV vld(RV base, RV i) { return gcc_jit_context_new_bitcast(c, nullptr, rv(vslot(base, i)), t_vec); }
  void vst(RV base, RV i, RV v) {
    assign(vslot(base, i), gcc_jit_context_new_bitcast(c, nullptr, v, t_vecu));
  }
  RV splat(RV x) {
    std::vector<RV> els(size_t(vw), x);
    return gcc_jit_context_new_rvalue_from_vector(c, nullptr, t_vec, size_t(vw), els.data());
  }
  // A vector of r's elements i..i+vw (a scalar Ref: vw copies of it).
  RV vload(const Ref &r, RV i) { return r.base ? vld(r.base, i) : splat(lit(r.scalar)); }

  // for (i = lo; i < hi; i += step) body(i), with (hi - lo) % step == 0.
  void loop(int64_t lo, int64_t hi, int64_t step, const std::function<void(RV)> &body) {
    if (hi <= lo) return;
    if (lo + step >= hi) {  // one trip: no loop at all, the index is a constant
      body(ix(lo));
      return;
    }
    LV i = local_init(t_long, "i", ix(lo));
    gcc_jit_block *b = block("loop");
    gcc_jit_block_end_with_jump(cur, nullptr, b);
    cur = b;
    body(rv(i));
    gcc_jit_block_add_assignment_op(cur, nullptr, i, GCC_JIT_BINARY_OP_PLUS, ix(step));
    gcc_jit_block *after = block("after");
    gcc_jit_block_end_with_conditional(cur, nullptr, cmp(GCC_JIT_COMPARISON_LT, rv(i), ix(hi)), b, after);
    cur = after;
  }

  // cond ? a : b without control flow (libgccjit has no conditional expression):
  // picks the bit pattern through an all-ones/all-zeros mask, so the loops stay
  // straight-line. (Branches inside nested loops, if-converted and vectorised by
  // GCC 12 at -march=x86-64-v3/v4, gave wrong elements: see docs/jit.md.)
  RV mask_of(RV cond) {
    RV one_or_zero =
        gcc_jit_context_new_cast(c, nullptr, gcc_jit_context_new_cast(c, nullptr, cond, t_int), t_long);
    return gcc_jit_context_new_unary_op(c, nullptr, GCC_JIT_UNARY_OP_MINUS, t_long, one_or_zero);
  }
  RV blend_long(RV mask, RV a, RV b) {
    RV keep_a = dop(GCC_JIT_BINARY_OP_BITWISE_AND, a, mask, t_long);
    RV not_mask = gcc_jit_context_new_unary_op(c, nullptr, GCC_JIT_UNARY_OP_BITWISE_NEGATE, t_long, mask);
    RV keep_b = dop(GCC_JIT_BINARY_OP_BITWISE_AND, b, not_mask, t_long);
    return dop(GCC_JIT_BINARY_OP_BITWISE_OR, keep_a, keep_b, t_long);
  }
  RV select(RV cond, RV a, RV b) {
    RV mask = rv(local_init(t_long, "m", mask_of(cond)));
    RV bits = blend_long(mask, gcc_jit_context_new_bitcast(c, nullptr, a, t_long),
                         gcc_jit_context_new_bitcast(c, nullptr, b, t_long));
    return once(gcc_jit_context_new_bitcast(c, nullptr, bits, t_double));
  }
  RV select_long(RV cond, RV a, RV b) { return blend_long(mask_of(cond), a, b); }

  // Imported C library functions of one double (or two for pow).
  gcc_jit_function *libm(const char *name, int nargs) {
    auto it = imported.find(name);
    if (it != imported.end()) return it->second;
    gcc_jit_param *ps[2] = {gcc_jit_context_new_param(c, nullptr, t_double, "x"),
                            gcc_jit_context_new_param(c, nullptr, t_double, "y")};
    gcc_jit_function *f =
        gcc_jit_context_new_function(c, nullptr, GCC_JIT_FUNCTION_IMPORTED, t_double, name, nargs, ps, 0);
    imported[name] = f;
    return f;
  }
  RV call1(const char *name, RV x) { return gcc_jit_context_new_call(c, nullptr, libm(name, 1), 1, &x); }
  RV call2(const char *name, RV x, RV y) {
    RV a[2] = {x, y};
    return gcc_jit_context_new_call(c, nullptr, libm(name, 2), 2, a);
  }
  RV builtin1(const char *name, RV x) {
    return gcc_jit_context_new_call(c, nullptr, gcc_jit_context_get_builtin_function(c, name), 1, &x);
  }
  std::map<std::string, gcc_jit_function *> imported;

  // Snapshot an expression into a local so it is evaluated once.
  RV once(RV x) { return rv(local_init(t_double, "v", x)); }

  // ---- scalar element operations: apply_binary / apply_unary (kernels.cpp) ----
  RV scalar_binary(BinaryOp op, RV x, RV y) {
    switch (op) {
    case BinaryOp::Add: return dop(GCC_JIT_BINARY_OP_PLUS, x, y);
    case BinaryOp::Sub: return dop(GCC_JIT_BINARY_OP_MINUS, x, y);
    case BinaryOp::Mul: return dop(GCC_JIT_BINARY_OP_MULT, x, y);
    case BinaryOp::Div: return dop(GCC_JIT_BINARY_OP_DIVIDE, x, y);
    case BinaryOp::Pow: return call2("pow", x, y);
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      x = once(x);
      y = once(y);
      RV keep = cmp(op == BinaryOp::Maximum ? GCC_JIT_COMPARISON_GE : GCC_JIT_COMPARISON_LE, x, y);
      RV nan = cmp(GCC_JIT_COMPARISON_NE, x, x);
      return select(dop(GCC_JIT_BINARY_OP_LOGICAL_OR, keep, nan, t_bool), x, y);
    }
    case BinaryOp::Less: return bool_to_double(cmp(GCC_JIT_COMPARISON_LT, x, y));
    case BinaryOp::LessEqual: return bool_to_double(cmp(GCC_JIT_COMPARISON_LE, x, y));
    case BinaryOp::Greater: return bool_to_double(cmp(GCC_JIT_COMPARISON_GT, x, y));
    case BinaryOp::GreaterEqual: return bool_to_double(cmp(GCC_JIT_COMPARISON_GE, x, y));
    case BinaryOp::Equal: return bool_to_double(cmp(GCC_JIT_COMPARISON_EQ, x, y));
    }
    return x;
  }

  RV scalar_unary(UnaryOp op, RV x) {
    switch (op) {
    case UnaryOp::Neg: return gcc_jit_context_new_unary_op(c, nullptr, GCC_JIT_UNARY_OP_MINUS, t_double, x);
    case UnaryOp::Exp: return call1("exp", x);
    case UnaryOp::Log: return call1("log", x);
    case UnaryOp::Sqrt: return builtin1("__builtin_sqrt", x);
    case UnaryOp::Tanh: return call1("tanh", x);
    case UnaryOp::Sigmoid: {
      RV e = call1("exp", gcc_jit_context_new_unary_op(c, nullptr, GCC_JIT_UNARY_OP_MINUS, t_double, x));
      return dop(GCC_JIT_BINARY_OP_DIVIDE, lit(1.0), dop(GCC_JIT_BINARY_OP_PLUS, lit(1.0), e));
    }
    case UnaryOp::Relu: x = once(x); return select(cmp(GCC_JIT_COMPARISON_GT, x, lit(0.0)), x, lit(0.0));
    case UnaryOp::Abs: return builtin1("__builtin_fabs", x);
    case UnaryOp::Softplus:
      x = once(x);
      return select(cmp(GCC_JIT_COMPARISON_GT, x, lit(20.0)), x, call1("log1p", call1("exp", x)));
    case UnaryOp::Sin: return call1("sin", x);
    case UnaryOp::Cos: return call1("cos", x);
    case UnaryOp::Tan: return call1("tan", x);
    case UnaryOp::Square: x = once(x); return dop(GCC_JIT_BINARY_OP_MULT, x, x);
    case UnaryOp::Reciprocal: return dop(GCC_JIT_BINARY_OP_DIVIDE, lit(1.0), x);
    case UnaryOp::ReluGrad: return bool_to_double(cmp(GCC_JIT_COMPARISON_GT, x, lit(0.0)));
    }
    return x;
  }

  // Calls body(offsets, out_offset) for every index of `os` in row-major order;
  // offsets[q] = sum over dims of index * strides[q][dim].
  void for_each_index(const Shape &os, const std::vector<std::vector<int64_t>> &strides,
                      const std::function<void(const std::vector<RV> &, RV)> &body) {
    std::vector<RV> offs(strides.size(), ix(0));
    std::function<void(int, std::vector<RV>, RV)> rec = [&](int d, std::vector<RV> o, RV out) {
      if (d == os.rank) {
        body(o, out);
        return;
      }
      int64_t inner = 1;
      for (int e = d + 1; e < os.rank; e++) inner *= os.dim[e];
      loop(0, os.dim[d], 1, [&](RV i) {
        std::vector<RV> o2 = o;
        for (size_t q = 0; q < o2.size(); q++)
          if (strides[q][size_t(d)]) o2[q] = iadd(o[q], imul(i, strides[q][size_t(d)]));
        rec(d + 1, o2, iadd(out, imul(i, inner)));
      });
    };
    rec(0, offs, ix(0));
  }

  // Strides of an operand of shape s read at the indices of output shape os
  // (kernels.cpp broadcast_strides): broadcast dimensions get stride 0.
  static std::vector<int64_t> bstrides(const Shape &s, const Shape &os) {
    std::vector<int64_t> st(size_t(os.rank), 0);
    int64_t acc = 1;
    for (int i = os.rank - 1; i >= 0; i--) {
      int is = s.rank - os.rank + i;
      int64_t d = is >= 0 ? s.dim[is] : 1;
      st[size_t(i)] = d == 1 ? 0 : acc;
      acc *= d;
    }
    return st;
  }

  // ---- op lowerings -----------------------------------------------------------

  void binary(BinaryOp op, const Ref &a, const Shape &as, const Ref &b, const Shape &bs, RV out,
              const Shape &os) {
    int64_t n = os.size(), na = as.size(), nb = bs.size();
    bool flat = (na == n || na == 1) && (nb == n || nb == 1);
    if (!flat) {
      for_each_index(os, {bstrides(as, os), bstrides(bs, os)}, [&](const std::vector<RV> &o, RV t) {
        st(out, t, scalar_binary(op, load(a, o[0]), load(b, o[1])));
      });
      return;
    }
    // Element t of a is a[t] when a has n elements, a[0] when it has one.
    Ref a1 = a, b1 = b;
    bool a_scalar = na == 1 && n > 1, b_scalar = nb == 1 && n > 1;
    if (a_scalar && a.base) a1 = Ref{nullptr, 0.0};
    if (b_scalar && b.base) b1 = Ref{nullptr, 0.0};
    RV av0 = a_scalar && a.base ? once(ld(a.base, ix(0))) : nullptr;
    RV bv0 = b_scalar && b.base ? once(ld(b.base, ix(0))) : nullptr;
    auto elem_a = [&](RV t) { return av0 ? av0 : load(a_scalar ? a1 : a, t); };
    auto elem_b = [&](RV t) { return bv0 ? bv0 : load(b_scalar ? b1 : b, t); };
    int64_t main = 0;
    enum gcc_jit_binary_op vop = GCC_JIT_BINARY_OP_PLUS;
    bool vectorisable = true;
    switch (op) {
    case BinaryOp::Add: vop = GCC_JIT_BINARY_OP_PLUS; break;
    case BinaryOp::Sub: vop = GCC_JIT_BINARY_OP_MINUS; break;
    case BinaryOp::Mul: vop = GCC_JIT_BINARY_OP_MULT; break;
    case BinaryOp::Div: vop = GCC_JIT_BINARY_OP_DIVIDE; break;
    default: vectorisable = false;
    }
    if (vectorisable && n >= vw) {
      main = n / vw * vw;
      RV sa = av0 ? splat(av0) : nullptr, sb = bv0 ? splat(bv0) : nullptr;
      if (sa) sa = rv(local_init(t_vec, "va", sa));
      if (sb) sb = rv(local_init(t_vec, "vb", sb));
      loop(0, main, vw, [&](RV t) {
        RV x = sa ? sa : vload(a, t);
        RV y = sb ? sb : vload(b, t);
        vst(out, t, dop(vop, x, y, t_vec));
      });
    }
    loop(main, n, 1, [&](RV t) { st(out, t, scalar_binary(op, elem_a(t), elem_b(t))); });
  }

  void unary(UnaryOp op, const Ref &x, RV out, int64_t n) {
    int64_t main = 0;
    if ((op == UnaryOp::Neg || op == UnaryOp::Square || op == UnaryOp::Reciprocal) && n >= vw) {
      main = n / vw * vw;
      loop(0, main, vw, [&](RV t) {
        RV v = rv(local_init(t_vec, "vx", vload(x, t)));
        RV r = op == UnaryOp::Neg ? gcc_jit_context_new_unary_op(c, nullptr, GCC_JIT_UNARY_OP_MINUS, t_vec, v)
               : op == UnaryOp::Square ? dop(GCC_JIT_BINARY_OP_MULT, v, v, t_vec)
                                       : dop(GCC_JIT_BINARY_OP_DIVIDE, splat(lit(1.0)), v, t_vec);
        vst(out, t, r);
      });
    }
    loop(main, n, 1, [&](RV t) { st(out, t, scalar_unary(op, load(x, t))); });
  }

  void select_op(const Ref &cnd, const Shape &cs, const Ref &a, const Shape &as, const Ref &b,
                 const Shape &bs, RV out, const Shape &os) {
    for_each_index(os, {bstrides(cs, os), bstrides(as, os), bstrides(bs, os)},
                   [&](const std::vector<RV> &o, RV t) {
                     RV test = cmp(GCC_JIT_COMPARISON_NE, load(cnd, o[0]), lit(0.0));
                     st(out, t, select(test, load(a, o[1]), load(b, o[2])));
                   });
  }

  // 0.0 + x[0] + x[1] + ... (k_sum)
  RV sum_all(const Ref &x, int64_t n) {
    LV acc = local_init(t_double, "acc", lit(0.0));
    loop(0, n, 1, [&](RV i) { assign(acc, dop(GCC_JIT_BINARY_OP_PLUS, rv(acc), load(x, i))); });
    return rv(acc);
  }
  // Independent serial sums of xs (each n long) in one loop: each is still its
  // own chain from 0.0 in row-major order, but the chains' additions overlap,
  // so together they take the latency of one (a serial sum is bound by the
  // add's latency). With a host, host(each) emits a loop that calls each()
  // `host_iterations` times in order; every call adds the next elements to the
  // chains, and a plain loop adds what is left.
  std::vector<RV> serial_sums(const std::vector<Ref> &xs, int64_t n, int64_t host_iterations,
                              const std::function<void(const std::function<void()> &)> &host) {
    std::vector<LV> accs;
    for (size_t q = 0; q < xs.size(); q++) accs.push_back(local_init(t_double, "acc", lit(0.0)));
    auto add_at = [&](RV i) {
      for (size_t q = 0; q < xs.size(); q++)
        assign(accs[q], dop(GCC_JIT_BINARY_OP_PLUS, rv(accs[q]), load(xs[q], i)));
    };
    int64_t done = 0;
    if (host) {
      int64_t per = n / host_iterations;
      LV next = local_init(t_long, "f", ix(0));
      host([&] {
        for (int64_t k = 0; k < per; k++) add_at(iaddk(rv(next), k));
        assign(next, iaddk(rv(next), per));
      });
      done = per * host_iterations;
    }
    loop(done, n, 1, add_at);
    std::vector<RV> totals;
    for (LV acc : accs) totals.push_back(rv(acc));
    return totals;
  }

  // The first maximal element, or the first NaN (k_argmax), over x[base + p*step]
  // for p in [0, len): returns the index p as a local and its value.
  void argmax_line(const Ref &x, RV base, int64_t len, int64_t step, LV &best_i, LV &best_v) {
    best_i = local_init(t_long, "bi", ix(0));
    best_v = local_init(t_double, "bv", load(x, base));
    loop(1, len, 1, [&](RV p) {
      RV v = once(load(x, iadd(base, imul(p, step))));
      RV greater = cmp(GCC_JIT_COMPARISON_GT, v, rv(best_v));
      // A NaN replaces the best only while the best is not a NaN: the first NaN sticks.
      RV first_nan = dop(GCC_JIT_BINARY_OP_LOGICAL_AND, cmp(GCC_JIT_COMPARISON_NE, v, v),
                         cmp(GCC_JIT_COMPARISON_EQ, rv(best_v), rv(best_v)), t_bool);
      RV take = once_bool(dop(GCC_JIT_BINARY_OP_LOGICAL_OR, greater, first_nan, t_bool));
      RV new_i = select_long(take, p, rv(best_i));
      RV new_v = select(take, v, rv(best_v));
      assign(best_i, new_i);
      assign(best_v, new_v);
    });
  }

  // kernels_simd.inc sum_axis / max_axis: each output element's chain runs
  // along the axis in ascending order.
  void axis_reduce(Op op, const Ref &x, const Shape &s, int axis, RV out) {
    int64_t outer, len, inner;
    axis_split(s, axis, outer, len, inner);
    loop(0, outer, 1, [&](RV o) {
      RV dst = iadd(imul(o, inner), ix(0));
      RV src = imul(o, len * inner);
      if (op == Op::MaxAxis) {
        loop(0, inner, 1, [&](RV t) { st(out, iadd(dst, t), load(x, iadd(src, t))); });
        loop(1, len, 1, [&](RV p) {
          loop(0, inner, 1, [&](RV t) {
            RV v = once(load(x, iadd(src, iadd(imul(p, inner), t))));
            RV m = once(ld(out, iadd(dst, t)));
            RV take = dop(GCC_JIT_BINARY_OP_LOGICAL_OR, cmp(GCC_JIT_COMPARISON_GT, v, m),
                          cmp(GCC_JIT_COMPARISON_NE, v, v), t_bool);
            st(out, iadd(dst, t), select(take, v, m));
          });
        });
        return;
      }
      loop(0, inner, 1, [&](RV t) { st(out, iadd(dst, t), lit(0.0)); });
      loop(0, len, 1, [&](RV p) {
        loop(0, inner, 1, [&](RV t) {
          LV d = elem(out, iadd(dst, t));
          assign(d, dop(GCC_JIT_BINARY_OP_PLUS, rv(d), load(x, iadd(src, iadd(imul(p, inner), t)))));
        });
      });
    });
    if (op == Op::MeanAxis) {
      RV count = lit(double(len));
      loop(0, outer * inner, 1, [&](RV i) { st(out, i, dop(GCC_JIT_BINARY_OP_DIVIDE, ld(out, i), count)); });
    }
  }

  void max_mask(const Ref &x, const Shape &s, int axis, RV out) {
    int64_t n = s.size();
    loop(0, n, 1, [&](RV i) { st(out, i, lit(0.0)); });
    if (axis < 0) {
      LV bi, bv;
      argmax_line(x, ix(0), n, 1, bi, bv);
      st(out, rv(bi), lit(1.0));
      return;
    }
    int64_t outer, len, inner;
    axis_split(s, axis, outer, len, inner);
    loop(0, outer, 1, [&](RV o) {
      loop(0, inner, 1, [&](RV t) {
        RV base = once_long(iadd(imul(o, len * inner), t));
        LV bi, bv;
        argmax_line(x, base, len, inner, bi, bv);
        st(out, iadd(base, imul(rv(bi), inner)), lit(1.0));
      });
    });
  }
  RV once_bool(RV x) { return rv(local_init(t_bool, "t", x)); }
  RV once_long(RV x) { return rv(local_init(t_long, "o", x)); }

  // k_sum_to: walk g in row-major order, adding each element to the target
  // element it broadcast from.
  void sum_to(const Ref &g, const Shape &gs, RV out, const Shape &target) {
    loop(0, target.size(), 1, [&](RV i) { st(out, i, lit(0.0)); });
    for_each_index(gs, {bstrides(target, gs)}, [&](const std::vector<RV> &o, RV t) {
      LV d = elem(out, o[0]);
      assign(d, dop(GCC_JIT_BINARY_OP_PLUS, rv(d), load(g, t)));
    });
  }

  void transpose(const Ref &x, const Shape &s, const int8_t *perm, RV out, const Shape &os) {
    if (os.rank == 2 && perm[0] == 1) return transpose2(x, os.dim[0], os.dim[1], out);
    std::vector<int64_t> in_stride(size_t(s.rank));
    int64_t acc = 1;
    for (int i = s.rank - 1; i >= 0; i--) {
      in_stride[size_t(i)] = acc;
      acc *= s.dim[i];
    }
    std::vector<int64_t> st_perm(size_t(os.rank));
    for (int i = 0; i < os.rank; i++) st_perm[size_t(i)] = in_stride[size_t(perm[i])];
    for_each_index(os, {st_perm}, [&](const std::vector<RV> &o, RV t) { st(out, t, load(x, o[0])); });
  }

  // out (rows x cols) = x^T, in bands of 8 output rows: each input read is a run
  // of 8 neighbours in one cache line and 8 output lines fill together. The
  // plain loop read a column of x per output row, one cache line per element,
  // at a stride that maps every line to the same few L1 sets. `each`, if given,
  // is emitted once per column of every full band (see serial_sums).
  void transpose2(const Ref &x, int64_t rows, int64_t cols, RV out,
                  const std::function<void()> *each = nullptr) {
    auto rows_band = [&](RV r0, int64_t h, const std::function<void()> *extra) {
      loop(0, cols, 1, [&](RV col) {
        for (int64_t r = 0; r < h; r++) {
          RV row = iaddk(r0, r);
          st(out, iadd(imul(row, cols), col), load(x, iadd(imul(col, rows), row)));
        }
        if (extra) (*extra)();
      });
    };
    int64_t full = rows / kTransposeBand * kTransposeBand;
    loop(0, full, kTransposeBand, [&](RV r0) { rows_band(r0, kTransposeBand, each); });
    if (full < rows) rows_band(ix(full), rows - full, nullptr);
  }

  void copy(const Ref &x, RV out, int64_t n) {
    loop(0, n, 1, [&](RV i) { st(out, i, load(x, i)); });
  }

  // k_copy_along: for every outer index, entries [src_at, src_at + count) of
  // x's line (src_len long) go to [dst_at, ...) of out's (dst_len long).
  void copy_along(const Ref &x, int64_t src_len, int64_t src_at, RV out, int64_t dst_len, int64_t dst_at,
                  int64_t count, int64_t outer, int64_t inner) {
    loop(0, outer, 1, [&](RV o) {
      RV src0 = iaddk(imul(o, src_len * inner), src_at * inner);
      RV dst0 = iaddk(imul(o, dst_len * inner), dst_at * inner);
      loop(0, count * inner, 1, [&](RV t) { st(out, iadd(dst0, t), load(x, iadd(src0, t))); });
    });
  }

  // c = a * b: R x V register tiles of vectors over (i, j), k ascending inside
  // each tile, every accumulator starting from 0.0 (kernels_simd.inc micro).
  // Rows [row0, row0 + m) of c = a * b (row0 may be a run-time value).
  void matmul_rows(const Ref &a, const Ref &b, RV cbuf, RV row0, int64_t m, int64_t k, int64_t n) {
    const int R = 4;
    const int V = vw >= 8 ? 4 : 3;
    auto rows = [&](RV i0, int r) {
      int64_t j = 0;
      int64_t full = n / (V * vw) * (V * vw);
      loop(0, full, V * vw, [&](RV j0) { tile(a, b, cbuf, i0, r, j0, V, k, n); });
      j = full;
      int nv = int((n - j) / vw);
      if (nv > 0) tile(a, b, cbuf, i0, r, ix(j), nv, k, n);
      j += int64_t(nv) * vw;
      for (; j < n; j++) scalar_tile(a, b, cbuf, i0, r, j, k, n);
    };
    int64_t mfull = m / R * R;
    loop(0, mfull, R, [&](RV i) { rows(iadd(row0, i), R); });
    if (m > mfull) rows(iaddk(row0, mfull), int(m - mfull));
  }

  // c = a * b. Above the same work crossover as k_matmul, blocks of rows become
  // chunks of a separate function run through the `par` callback (Kiln's thread
  // pool): each output element is still computed by one chain, so the thread
  // count cannot change a bit.
  void matmul(const Ref &a, const Ref &b, RV cbuf, int64_t m, int64_t k, int64_t n) {
    if (!par || m * k * n < kParallelMatmulWork || m < 8) {
      matmul_rows(a, b, cbuf, ix(0), m, k, n);
      return;
    }
    int64_t rows_per_chunk = std::max<int64_t>(4, (m / 8 + 3) / 4 * 4);
    int64_t chunks = (m + rows_per_chunk - 1) / rows_per_chunk;
    int64_t last_rows = m - (chunks - 1) * rows_per_chunk;

    // The chunk function: void mmN(void *ctx, long chunk), ctx = {a, b, c}.
    gcc_jit_function *saved_fn = fn;
    gcc_jit_block *saved_cur = cur;
    gcc_jit_param *ps[2] = {gcc_jit_context_new_param(c, nullptr, t_voidp, "ctx"),
                            gcc_jit_context_new_param(c, nullptr, t_long, "chunk")};
    std::string name = fresh("kiln_matmul_chunk");
    gcc_jit_function *chunk_fn =
        gcc_jit_context_new_function(c, nullptr, GCC_JIT_FUNCTION_INTERNAL, t_void, name.c_str(), 2, ps, 0);
    fn = chunk_fn;
    cur = block("entry");
    RV ptrs = gcc_jit_context_new_cast(c, nullptr, gcc_jit_param_as_rvalue(ps[0]), t_dpp);
    Ref ca = a, cb = b;
    if (a.base) ca.base = rv(local_init(t_dptr, "a", ld(ptrs, ix(0))));
    if (b.base) cb.base = rv(local_init(t_dptr, "b", ld(ptrs, ix(1))));
    RV cc = rv(local_init(t_dptr, "c", ld(ptrs, ix(2))));
    RV chunk = gcc_jit_param_as_rvalue(ps[1]);
    RV row0 = rv(local_init(t_long, "row0", imul(chunk, rows_per_chunk)));
    if (last_rows == rows_per_chunk) {
      matmul_rows(ca, cb, cc, row0, rows_per_chunk, k, n);
    } else {
      gcc_jit_block *full = block("full"), *last = block("last");
      gcc_jit_block_end_with_conditional(cur, nullptr, cmp(GCC_JIT_COMPARISON_LT, chunk, ix(chunks - 1)),
                                         full, last);
      cur = full;
      matmul_rows(ca, cb, cc, row0, rows_per_chunk, k, n);
      gcc_jit_block_end_with_void_return(cur, nullptr);
      cur = last;
      matmul_rows(ca, cb, cc, row0, last_rows, k, n);
    }
    gcc_jit_block_end_with_void_return(cur, nullptr);
    fn = saved_fn;
    cur = saved_cur;

    // In the kernel: ctx array, then par(chunks, mmN, ctx).
    LV ctx = local(gcc_jit_context_new_array_type(c, nullptr, t_dptr, 3), "mmctx");
    RV null = gcc_jit_context_null(c, t_dptr);
    assign(gcc_jit_context_new_array_access(c, nullptr, rv(ctx), ix(0)), a.base ? a.base : null);
    assign(gcc_jit_context_new_array_access(c, nullptr, rv(ctx), ix(1)), b.base ? b.base : null);
    assign(gcc_jit_context_new_array_access(c, nullptr, rv(ctx), ix(2)), cbuf);
    RV call_args[3] = {
        ix(chunks), gcc_jit_function_get_address(chunk_fn, nullptr),
        gcc_jit_context_new_cast(c, nullptr, gcc_jit_lvalue_get_address(ctx, nullptr), t_voidp)};
    gcc_jit_block_add_eval(cur, nullptr, gcc_jit_context_new_call_through_ptr(c, nullptr, par, 3, call_args));
  }

  // Offset of a[i][kk] in a's buffer.
  RV a_index(const Ref &a, RV i, RV kk, int64_t k) {
    return a.transposed ? iadd(imul(kk, a.ld), i) : iadd(imul(i, k), kk);
  }

  void tile(const Ref &a, const Ref &b, RV cbuf, RV i0, int r, RV j0, int v, int64_t k, int64_t n) {
    std::vector<LV> acc(size_t(r * v));
    RV zero = splat(lit(0.0));
    for (auto &l : acc) l = local_init(t_vec, "acc", zero);
    loop(0, k, 1, [&](RV kk) {
      std::vector<RV> bv(static_cast<size_t>(v));
      RV brow = imul(kk, n);
      for (int q = 0; q < v; q++)
        bv[size_t(q)] = rv(local_init(t_vec, "bv", vload(b, iadd(brow, iaddk(j0, int64_t(q) * vw)))));
      for (int rr = 0; rr < r; rr++) {
        RV av = rv(local_init(t_vec, "av", splat(load(a, a_index(a, iaddk(i0, rr), kk, k)))));
        for (int q = 0; q < v; q++) {
          LV ac = acc[size_t(rr * v + q)];
          RV prod = dop(GCC_JIT_BINARY_OP_MULT, av, bv[size_t(q)], t_vec);
          assign(ac, dop(GCC_JIT_BINARY_OP_PLUS, rv(ac), prod, t_vec));
        }
      }
    });
    for (int rr = 0; rr < r; rr++)
      for (int q = 0; q < v; q++)
        vst(cbuf, iadd(imul(iaddk(i0, rr), n), iaddk(j0, int64_t(q) * vw)), rv(acc[size_t(rr * v + q)]));
  }

  void scalar_tile(const Ref &a, const Ref &b, RV cbuf, RV i0, int r, int64_t j, int64_t k, int64_t n) {
    std::vector<LV> acc(static_cast<size_t>(r));
    for (auto &l : acc) l = local_init(t_double, "acc", lit(0.0));
    loop(0, k, 1, [&](RV kk) {
      RV bvv = once(load(b, iaddk(imul(kk, n), j)));
      for (int rr = 0; rr < r; rr++) {
        RV prod = dop(GCC_JIT_BINARY_OP_MULT, load(a, a_index(a, iaddk(i0, rr), kk, k)), bvv);
        assign(acc[size_t(rr)], dop(GCC_JIT_BINARY_OP_PLUS, rv(acc[size_t(rr)]), prod));
      }
    });
    for (int rr = 0; rr < r; rr++) st(cbuf, iaddk(imul(iaddk(i0, rr), n), j), rv(acc[size_t(rr)]));
  }
};

}  // namespace

// A serial sum's result finishing a chain of its input's whole length: Sum,
// Mean, and SumTo onto a single element (k_sum_to then adds every element in
// row-major order from 0.0, as k_sum does).
static bool is_serial_sum(const Graph &g, int32_t i) {
  const GraphNode &n = g[i];
  return n.op == Op::Sum || n.op == Op::Mean || (n.op == Op::SumTo && n.size() == 1);
}

// Rank-2 transposes used only as the LEFT operand of matmuls: those matmuls
// read the transpose's input in place, so it is never materialised.
static std::vector<bool> left_operand_transposes(const Graph &g) {
  std::vector<int> uses(size_t(g.size()), 0), left_uses(size_t(g.size()), 0);
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    for (int q = 0; q < op_arity(n.op); q++) uses[size_t(n.in[q])]++;
    if (n.op == Op::Matmul && n.in[0] != n.in[1]) left_uses[size_t(n.in[0])]++;
  }
  for (const GraphOutput &o : g.outputs) uses[size_t(o.node)]++;
  std::vector<bool> left(size_t(g.size()), false);
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    left[size_t(i)] = n.op == Op::Transpose && n.shape.rank == 2 && uses[size_t(i)] > 0 &&
                      uses[size_t(i)] == left_uses[size_t(i)];
  }
  return left;
}

// transpose2 bands (kTransposeBand rows each); a sum can ride only in full
// bands, one call per copied column.
static int64_t transpose_band_iterations(const GraphNode &t) {
  return t.shape.dim[0] / kTransposeBand * t.shape.dim[1];
}
static bool can_host_sums(const Graph &g, int32_t t, const std::vector<bool> &left_only, int64_t sum_len) {
  const GraphNode &n = g[t];
  if (n.op != Op::Transpose || n.shape.rank != 2 || n.perm[0] != 1 || left_only[size_t(t)]) return false;
  int64_t iters = transpose_band_iterations(n);
  return iters > 0 && sum_len / iters >= 1;
}

// An element-wise node over n >= 2 elements whose operands have n elements in
// the same layout, or one: a candidate for a fused loop.
static bool is_flat_elementwise(const Graph &g, int32_t i) {
  const GraphNode &n = g[i];
  if (!op_is_binary(n.op) && !op_is_unary(n.op) && n.op != Op::Select && n.op != Op::BroadcastTo)
    return false;
  int64_t size = n.size();
  if (size < 2) return false;
  for (int q = 0; q < op_arity(n.op); q++) {
    int64_t s = g[n.in[q]].size();
    if (s != size && s != 1) return false;
  }
  return true;
}

// Records, for every node of steps[from..], the position of its step.
static void index_steps(const std::vector<EmitStep> &steps, size_t from, std::vector<size_t> &pos) {
  for (size_t q = from; q < steps.size(); q++)
    for (int32_t nd : {steps[q].node, steps[q].paired, steps[q].host})
      if (nd >= 0) pos[size_t(nd)] = q;
}

std::vector<EmitStep> kernel_emission_order(const Graph &g) {
  std::vector<int32_t> order;  // -(first + 1) then the second marks a pair
  for (int32_t i = 0; i < g.size(); i++) order.push_back(i);
  std::vector<bool> paired(size_t(g.size()), false);
  for (size_t pr = 0; pr < order.size(); pr++) {
    int32_t r = order[pr];
    if (r < 0 || paired[size_t(r)] || !is_serial_sum(g, r)) continue;
    std::vector<bool> dep(size_t(g.size()), false);
    dep[size_t(r)] = true;
    for (int32_t j = r + 1; j < g.size(); j++)
      for (int q = 0; q < op_arity(g[j].op); q++)
        if (dep[size_t(g[j].in[q])]) dep[size_t(j)] = true;
    size_t pr2 = pr + 1;
    for (; pr2 < order.size(); pr2++) {
      int32_t c = order[pr2];
      if (c < 0) {  // an earlier pair: do not reorder across it
        pr2 = order.size();
        break;
      }
      if (!dep[size_t(c)] && !paired[size_t(c)] && is_serial_sum(g, c) &&
          g[g[c].in[0]].size() == g[g[r].in[0]].size())
        break;
    }
    if (pr2 >= order.size()) continue;
    int32_t r2 = order[pr2];
    std::vector<int32_t> next(order.begin(), order.begin() + std::ptrdiff_t(pr));
    for (size_t q = pr + 1; q < pr2; q++)
      if (!dep[size_t(order[q])]) next.push_back(order[q]);
    size_t pair_at = next.size();
    next.push_back(-r - 1);
    next.push_back(r2);
    for (size_t q = pr + 1; q < pr2; q++)
      if (dep[size_t(order[q])]) next.push_back(order[q]);
    next.insert(next.end(), order.begin() + std::ptrdiff_t(pr2) + 1, order.end());
    order = std::move(next);
    paired[size_t(r)] = paired[size_t(r2)] = true;
    pr = pair_at + 1;
  }

  std::vector<EmitStep> steps;
  for (size_t p = 0; p < order.size(); p++) {
    if (order[p] < 0) {
      steps.push_back(EmitStep{-order[p] - 1, order[p + 1]});
      p++;
    } else {
      steps.push_back(EmitStep{order[p]});
    }
  }
  // Hosts: the first later transpose that can carry the sum and whose input is
  // computed before it (so moving it up breaks no dependency).
  std::vector<bool> left_only = left_operand_transposes(g);
  std::vector<size_t> step_of(size_t(g.size()), 0);
  index_steps(steps, 0, step_of);
  for (size_t p = 0; p < steps.size(); p++) {
    int32_t sum = steps[p].node;
    if (!is_serial_sum(g, sum)) continue;
    int64_t len = g[g[sum].in[0]].size();
    for (size_t q = p + 1; q < steps.size(); q++) {
      int32_t t = steps[q].node;
      if (steps[q].paired >= 0 || !can_host_sums(g, t, left_only, len)) continue;
      int32_t input = g[t].in[0];
      if (g[input].op != Op::Param && g[input].op != Op::Const && step_of[size_t(input)] >= p) continue;
      steps[p].host = t;
      steps.erase(steps.begin() + std::ptrdiff_t(q));
      index_steps(steps, p, step_of);
      break;
    }
  }
  // Steps with no loop (parameters, constants, and element-wise ops on one
  // element) move up to just after their operands, so they do not split runs.
  {
    std::vector<EmitStep> moved;
    std::vector<size_t> at(size_t(g.size()), 0);  // each placed node's position in `moved`
    for (const EmitStep &st : steps) {
      const GraphNode &n = g[st.node];
      bool no_loop = st.paired < 0 && st.host < 0 &&
                     (n.op == Op::Param || n.op == Op::Const ||
                      (n.size() == 1 && (op_is_binary(n.op) || op_is_unary(n.op))));
      size_t pos = moved.size();
      if (no_loop) {
        pos = 0;
        for (int q = 0; q < op_arity(n.op); q++) pos = std::max(pos, at[size_t(n.in[q])] + 1);
      }
      moved.insert(moved.begin() + std::ptrdiff_t(pos), st);
      index_steps(moved, pos, at);
    }
    steps = std::move(moved);
  }
  // Runs of element-wise steps over the same elements.
  auto plain_flat = [&](size_t q) {
    return steps[q].paired < 0 && steps[q].host < 0 && is_flat_elementwise(g, steps[q].node);
  };
  for (size_t p = 0; p + 1 < steps.size(); p++)
    steps[p].fuse_next =
        plain_flat(p) && plain_flat(p + 1) && g[steps[p].node].size() == g[steps[p + 1].node].size();
  return steps;
}

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

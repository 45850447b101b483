// kernel_emitter.cpp — libgccjit building blocks and the per-op lowerings, each
// reproducing the summation order of its runtime/tensor_ops.h kernel (see
// kernel_emitter.h).
#include "compiler/kernel_emitter.h"

#include <algorithm>

#include "compiler/jit_context.h"
#include "compiler/kernel_plan.h"
#include "runtime/elementwise_formulas.h"
#include "runtime/error.h"
#include "runtime/random_keys.h"

namespace kiln::jit {

Emitter::Emitter(gcc_jit_context *ctx) : c(ctx) {
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
  t_ulong = gcc_jit_context_get_type(c, GCC_JIT_TYPE_UNSIGNED_LONG);
  t_vlong = gcc_jit_type_get_vector(t_long, size_t(vw));
  t_vulong = gcc_jit_type_get_vector(t_ulong, size_t(vw));
  t_voidp = gcc_jit_context_get_type(c, GCC_JIT_TYPE_VOID_PTR);
  gcc_jit_type *chunk_params[2] = {t_voidp, t_long};
  t_chunk_fn = gcc_jit_context_new_function_ptr_type(c, nullptr, t_void, 2, chunk_params, 0);
  gcc_jit_type *par_params[3] = {t_long, t_chunk_fn, t_voidp};
  t_par_fn = gcc_jit_context_new_function_ptr_type(c, nullptr, t_void, 3, par_params, 0);
}

LV Emitter::local_init(gcc_jit_type *t, const char *prefix, RV init) {
  LV l = local(t, prefix);
  assign(l, init);
  return l;
}

void Emitter::loop(int64_t lo, int64_t hi, int64_t step, const std::function<void(RV)> &body) {
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

void Emitter::loop_rt(RV lo, RV hi, int64_t step, const std::function<void(RV)> &body) {
  LV i = local_init(t_long, "i", lo);
  gcc_jit_block *b = block("loop"), *after = block("after");
  gcc_jit_block_end_with_conditional(cur, nullptr, cmp(GCC_JIT_COMPARISON_LT, rv(i), hi), b, after);
  cur = b;
  body(rv(i));
  gcc_jit_block_add_assignment_op(cur, nullptr, i, GCC_JIT_BINARY_OP_PLUS, ix(step));
  gcc_jit_block_end_with_conditional(cur, nullptr, cmp(GCC_JIT_COMPARISON_LT, rv(i), hi), b, after);
  cur = after;
}

void Emitter::vector_loop(int64_t n, bool batched, bool vectorised, const std::function<void(RV)> &vec,
                          const std::function<void(RV)> &scalar) {
  if (!batched) {
    int64_t main = 0;
    if (vectorised && n >= vw) {
      main = n / vw * vw;
      loop(0, main, vw, vec);
    }
    loop(main, n, 1, scalar);
    return;
  }
  RV count = extent(n), main = ix(0);
  if (vectorised && n >= vw) {
    main = once_long(imul(dop(GCC_JIT_BINARY_OP_DIVIDE, count, ix(vw), t_long), vw));
    loop_rt(ix(0), main, vw, vec);
  }
  loop_rt(main, count, 1, scalar);
}

RV Emitter::mask_of(RV cond) {
  RV one_or_zero =
      gcc_jit_context_new_cast(c, nullptr, gcc_jit_context_new_cast(c, nullptr, cond, t_int), t_long);
  return gcc_jit_context_new_unary_op(c, nullptr, GCC_JIT_UNARY_OP_MINUS, t_long, one_or_zero);
}

RV Emitter::blend_long(RV mask, RV a, RV b) {
  RV keep_a = dop(GCC_JIT_BINARY_OP_BITWISE_AND, a, mask, t_long);
  RV not_mask = gcc_jit_context_new_unary_op(c, nullptr, GCC_JIT_UNARY_OP_BITWISE_NEGATE, t_long, mask);
  RV keep_b = dop(GCC_JIT_BINARY_OP_BITWISE_AND, b, not_mask, t_long);
  return dop(GCC_JIT_BINARY_OP_BITWISE_OR, keep_a, keep_b, t_long);
}

RV Emitter::select(RV cond, RV a, RV b) {
  RV mask = rv(local_init(t_long, "m", mask_of(cond)));
  RV bits = blend_long(mask, gcc_jit_context_new_bitcast(c, nullptr, a, t_long),
                       gcc_jit_context_new_bitcast(c, nullptr, b, t_long));
  return once(gcc_jit_context_new_bitcast(c, nullptr, bits, t_double));
}

gcc_jit_function *Emitter::libm(const char *name, int nargs) {
  auto it = imported.find(name);
  if (it != imported.end()) return it->second;
  gcc_jit_param *ps[2] = {gcc_jit_context_new_param(c, nullptr, t_double, "x"),
                          gcc_jit_context_new_param(c, nullptr, t_double, "y")};
  gcc_jit_function *f =
      gcc_jit_context_new_function(c, nullptr, GCC_JIT_FUNCTION_IMPORTED, t_double, name, nargs, ps, 0);
  imported[name] = f;
  return f;
}

void Emitter::allreduce(const Ref &x, RV out, int64_t n, int kind, uint64_t signature) {
  gcc_jit_function *&f = imported["kiln_allreduce_leaf"];
  if (!f) {
    gcc_jit_param *ps[5] = {gcc_jit_context_new_param(c, nullptr, t_dptr, "in"),
                            gcc_jit_context_new_param(c, nullptr, t_dptr, "out"),
                            gcc_jit_context_new_param(c, nullptr, t_long, "n"),
                            gcc_jit_context_new_param(c, nullptr, t_int, "kind"),
                            gcc_jit_context_new_param(c, nullptr, t_ulong, "signature")};
    f = gcc_jit_context_new_function(c, nullptr, GCC_JIT_FUNCTION_IMPORTED, t_void, "kiln_allreduce_leaf", 5,
                                     ps, 0);
  }
  RV in = x.base;
  if (!in) {
    LV one = local(t_double, "allreduce_in");
    assign(one, lit(x.scalar));
    in = gcc_jit_lvalue_get_address(one, nullptr);
  }
  RV args[5] = {in, out, ix(n), gcc_jit_context_new_rvalue_from_int(c, t_int, kind),
                gcc_jit_context_new_rvalue_from_long(c, t_ulong, long(signature))};
  gcc_jit_block_add_eval(cur, nullptr, gcc_jit_context_new_call(c, nullptr, f, 5, args));
}

// ---- op lowerings ----------------------------------------------------------

// ---- formulas written once (JitValue) ------------------------------------------

namespace {

JitValue kept(const JitValue &like, RV v) {
  return JitValue{like.e, like.e->rv(like.e->local_init(like.t, "f", v)), like.t};
}
JitValue op2(enum gcc_jit_binary_op op, const JitValue &a, const JitValue &b) {
  return kept(a, a.e->dop(op, a.v, b.v, a.t));
}
JitValue constant(const JitValue &like, double k) {
  RV l = like.e->lit(k);
  return JitValue{like.e, like.t == like.e->t_vec ? like.e->splat(l) : l, like.t};
}
JitValue constant(const JitValue &like, uint64_t k) {
  return JitValue{like.e, gcc_jit_context_new_rvalue_from_long(like.e->c, like.t, long(k)), like.t};
}
// A signed integer constant of like's type: t_long, or t_vlong (every lane k).
JitValue constant(const JitValue &like, int64_t k) {
  Emitter *e = like.e;
  RV l = gcc_jit_context_new_rvalue_from_long(e->c, e->t_long, long(k));
  if (like.t != e->t_vlong) return JitValue{e, l, like.t};
  std::vector<RV> els(size_t(e->vw), l);
  return JitValue{
      e, gcc_jit_context_new_rvalue_from_vector(e->c, nullptr, e->t_vlong, size_t(e->vw), els.data()),
      like.t};
}
JitValue bitcast(const JitValue &a, gcc_jit_type *t) {
  return kept(JitValue{a.e, a.v, t}, gcc_jit_context_new_bitcast(a.e->c, nullptr, a.v, t));
}

// tanh_formula.h's number kit on libgccjit values: D is t_double or t_vec, I the
// integer type of the same width (t_long or t_vlong).
struct JitKit {
  using D = JitValue;
  using I = JitValue;
  static void bits(const D &x, I &out) { out = bitcast(x, x.t == x.e->t_vec ? x.e->t_vlong : x.e->t_long); }
  static void real(const I &i, D &out) { out = bitcast(i, i.t == i.e->t_vlong ? i.e->t_vec : i.e->t_double); }
  static void negative_mask(const I &v, I &out) {
    bool vec = v.t == v.e->t_vlong;
    JitValue u = bitcast(v, vec ? v.e->t_vulong : v.e->t_ulong);
    RV shift = vec ? gcc_jit_context_new_bitcast(v.e->c, nullptr, constant(v, int64_t(63)).v, v.e->t_vulong)
                   : gcc_jit_context_new_rvalue_from_long(v.e->c, v.e->t_ulong, 63);
    JitValue sign = bitcast(kept(u, v.e->dop(GCC_JIT_BINARY_OP_RSHIFT, u.v, shift, u.t)), v.t);
    out = kept(v, gcc_jit_context_new_unary_op(v.e->c, nullptr, GCC_JIT_UNARY_OP_MINUS, v.t, sign.v));
  }
};

}  // namespace

JitValue operator+(const JitValue &a, const JitValue &b) { return op2(GCC_JIT_BINARY_OP_PLUS, a, b); }
JitValue operator-(const JitValue &a, const JitValue &b) { return op2(GCC_JIT_BINARY_OP_MINUS, a, b); }
JitValue operator*(const JitValue &a, const JitValue &b) { return op2(GCC_JIT_BINARY_OP_MULT, a, b); }
JitValue operator^(const JitValue &a, const JitValue &b) { return op2(GCC_JIT_BINARY_OP_BITWISE_XOR, a, b); }
JitValue operator+(double k, const JitValue &b) { return constant(b, k) + b; }
JitValue operator*(double k, const JitValue &b) { return constant(b, k) * b; }
JitValue operator+(const JitValue &a, uint64_t k) { return a + constant(a, k); }
JitValue operator*(const JitValue &a, uint64_t k) { return a * constant(a, k); }
JitValue operator^(const JitValue &a, uint64_t k) { return a ^ constant(a, k); }
JitValue operator>>(const JitValue &a, int k) {
  return op2(GCC_JIT_BINARY_OP_RSHIFT, a, constant(a, uint64_t(k)));
}
JitValue operator<<(const JitValue &a, int k) {
  return op2(GCC_JIT_BINARY_OP_LSHIFT, a, constant(a, int64_t(k)));
}
JitValue operator/(const JitValue &a, const JitValue &b) { return op2(GCC_JIT_BINARY_OP_DIVIDE, a, b); }
JitValue operator&(const JitValue &a, const JitValue &b) { return op2(GCC_JIT_BINARY_OP_BITWISE_AND, a, b); }
JitValue operator|(const JitValue &a, const JitValue &b) { return op2(GCC_JIT_BINARY_OP_BITWISE_OR, a, b); }
JitValue operator~(const JitValue &a) {
  return kept(a, gcc_jit_context_new_unary_op(a.e->c, nullptr, GCC_JIT_UNARY_OP_BITWISE_NEGATE, a.t, a.v));
}
JitValue operator+(const JitValue &a, double k) { return a + constant(a, k); }
JitValue operator-(const JitValue &a, double k) { return a - constant(a, k); }
JitValue operator*(const JitValue &a, double k) { return a * constant(a, k); }
JitValue operator&(const JitValue &a, int64_t k) { return a & constant(a, k); }
JitValue operator+(const JitValue &a, int64_t k) { return a + constant(a, k); }
JitValue operator-(const JitValue &a, int64_t k) { return a - constant(a, k); }
JitValue operator+(int64_t k, const JitValue &b) { return constant(b, k) + b; }
JitValue operator-(int64_t k, const JitValue &b) { return constant(b, k) - b; }

JitValue operator-(const JitValue &a) {
  return kept(a, gcc_jit_context_new_unary_op(a.e->c, nullptr, GCC_JIT_UNARY_OP_MINUS, a.t, a.v));
}
JitValue operator/(double k, const JitValue &b) { return constant(b, k) / b; }

namespace {

// The rest of the kit elementwise_formulas.h's formulas use. Comparisons, select
// and library calls exist on doubles only: the emitter runs on vectors only the
// formulas that are arithmetic alone (formula::unary_arithmetic_only).
struct FormulaKit : JitKit {
  using M = JitValue;  // t_bool
  static D call(const char *name, const D &x) { return kept(x, x.e->call1(name, x.v)); }
  static D exp(const D &x) { return call("exp", x); }
  static D log(const D &x) { return call("log", x); }
  static D log1p(const D &x) { return call("log1p", x); }
  static D sin(const D &x) { return call("sin", x); }
  static D cos(const D &x) { return call("cos", x); }
  static D tan(const D &x) { return call("tan", x); }
  static D pow(const D &x, const D &y) { return kept(x, x.e->call2("pow", x.v, y.v)); }
  static D sqrt(const D &x) { return kept(x, x.e->builtin1("__builtin_sqrt", x.v)); }
  static D fabs(const D &x) { return kept(x, x.e->builtin1("__builtin_fabs", x.v)); }
  static M compare(enum gcc_jit_comparison op, const D &a, const D &b) {
    return M{a.e, a.e->once_bool(a.e->cmp(op, a.v, b.v)), a.e->t_bool};
  }
  static M lt(const D &a, const D &b) { return compare(GCC_JIT_COMPARISON_LT, a, b); }
  static M le(const D &a, const D &b) { return compare(GCC_JIT_COMPARISON_LE, a, b); }
  static M gt(const D &a, const D &b) { return compare(GCC_JIT_COMPARISON_GT, a, b); }
  static M ge(const D &a, const D &b) { return compare(GCC_JIT_COMPARISON_GE, a, b); }
  static M eq(const D &a, const D &b) { return compare(GCC_JIT_COMPARISON_EQ, a, b); }
  static M ne(const D &a, const D &b) { return compare(GCC_JIT_COMPARISON_NE, a, b); }
  static M lor(const M &a, const M &b) {
    return M{a.e, a.e->once_bool(a.e->dop(GCC_JIT_BINARY_OP_LOGICAL_OR, a.v, b.v, a.e->t_bool)), a.e->t_bool};
  }
  static D select(const M &c, const D &a, const D &b) { return D{a.e, a.e->select(c.v, a.v, b.v), a.t}; }
  static D lit(const D &like, double k) { return constant(like, k); }
};

}  // namespace

// ---- op lowerings: elementwise_formulas.h on libgccjit values ---------------------

RV Emitter::scalar_binary(BinaryOp op, RV x, RV y) {
  JitValue a{this, once(x), t_double}, b{this, once(y), t_double};
  return formula_binary(op, a, b).v;
}

RV Emitter::scalar_unary(UnaryOp op, RV x) { return formula_unary(op, JitValue{this, once(x), t_double}).v; }

JitValue formula_binary(BinaryOp op, const JitValue &a, const JitValue &b) {
  JitValue r = a;
  switch (op) {
#define KILN_X(e, ...) \
  case BinaryOp::e: formula::binary<BinaryOp::e, FormulaKit>(a, b, r); break;
    KILN_BINARY_ARITH_OPS(KILN_X) KILN_COMPARE_OPS(KILN_X)
#undef KILN_X
  }
  return r;
}

JitValue formula_unary(UnaryOp op, const JitValue &x) {
  JitValue r = x;
  switch (op) {
#define KILN_X(e, ...) \
  case UnaryOp::e: formula::unary<UnaryOp::e, FormulaKit>(x, r); break;
    KILN_UNARY_OPS(KILN_X)
#undef KILN_X
  }
  return r;
}

void Emitter::random(RandomKind kind, const Ref &key, RV out, int64_t n, RV status) {
  using namespace random_formula;
  // The key: random_key_of_double's tests, the conversion made only in range.
  RV d = once(load(key, ix(0)));
  RV in_range = once_bool(dop(GCC_JIT_BINARY_OP_LOGICAL_AND, cmp(GCC_JIT_COMPARISON_GE, d, lit(-0x1.0p63)),
                              cmp(GCC_JIT_COMPARISON_LT, d, lit(0x1.0p63)), t_bool));
  RV whole = once_long(gcc_jit_context_new_cast(c, nullptr, select(in_range, d, lit(0.0)), t_long));
  RV ok = once_bool(dop(GCC_JIT_BINARY_OP_LOGICAL_AND, in_range,
                        cmp(GCC_JIT_COMPARISON_EQ, gcc_jit_context_new_cast(c, nullptr, whole, t_double), d),
                        t_bool));
  st(status, ix(0), select(ok, lit(0.0), lit(1.0)));
  st(status, ix(1), d);
  RV k = gcc_jit_context_new_cast(c, nullptr, select_long(ok, whole, ix(0)), t_ulong);
  JitValue kv{this, rv(local_init(t_ulong, "key", k)), t_ulong};
  auto counter = [&](RV i) {
    return JitValue{this, gcc_jit_context_new_cast(c, nullptr, i, t_ulong), t_ulong};
  };
  // (double)(long)(bits >> 11): the value is below 2^53, so both casts are exact.
  auto to_double = [&](const JitValue &v) {
    return gcc_jit_context_new_cast(c, nullptr, gcc_jit_context_new_cast(c, nullptr, v.v, t_long), t_double);
  };
  auto uniform = [&](RV i) {
    return once(dop(GCC_JIT_BINARY_OP_MULT, to_double(splitmix_at(kv, counter(i)) >> 11), lit(0x1.0p-53)));
  };
  switch (kind) {
  case RandomKind::Uniform:
  case RandomKind::Dropout: loop(0, n, 1, [&](RV i) { st(out, i, uniform(i)); }); return;
  case RandomKind::Split:
    loop(0, n, 1, [&](RV i) { st(out, i, to_double(split_at(kv, counter(i)))); });
    return;
  case RandomKind::Normal: {
    // random_normal per pair: cos for the even element, sin for the odd one.
    auto pair = [&](RV p, bool both) {
      RV i0 = imul(p, 2);
      RV u1 = once(dop(GCC_JIT_BINARY_OP_MINUS, lit(1.0), uniform(i0)));
      RV u2 = uniform(iaddk(i0, 1));
      RV r = once(builtin1("__builtin_sqrt", dop(GCC_JIT_BINARY_OP_MULT, lit(-2.0), call1("log", u1))));
      RV theta = once(dop(GCC_JIT_BINARY_OP_MULT, lit(kTwoPi), u2));
      st(out, i0, dop(GCC_JIT_BINARY_OP_MULT, r, call1("cos", theta)));
      if (both) st(out, iaddk(i0, 1), dop(GCC_JIT_BINARY_OP_MULT, r, call1("sin", theta)));
    };
    loop(0, n / 2, 1, [&](RV p) { pair(p, true); });
    if (n % 2) pair(ix(n / 2), false);
    return;
  }
  }
}

void Emitter::for_each_index(const Shape &os, const std::vector<std::vector<int64_t>> &strides,
                             const std::function<void(const std::vector<RV> &, RV)> &body, bool rows0) {
  std::vector<RV> offs(strides.size(), ix(0));
  std::function<void(int, std::vector<RV>, RV)> rec = [&](int d, std::vector<RV> o, RV out) {
    if (d == os.rank) {
      body(o, out);
      return;
    }
    int64_t inner = 1;
    for (int e = d + 1; e < os.rank; e++) inner *= os.dim[e];
    loop_x(0, os.dim[d], 1, rows0 && d == 0, [&](RV i) {
      std::vector<RV> o2 = o;
      for (size_t q = 0; q < o2.size(); q++)
        if (strides[q][size_t(d)]) o2[q] = iadd(o[q], imul(i, strides[q][size_t(d)]));
      rec(d + 1, o2, iadd(out, imul(i, inner)));
    });
  };
  rec(0, offs, ix(0));
}

std::vector<int64_t> Emitter::bstrides(const Shape &s, const Shape &os) {
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

void Emitter::binary(BinaryOp op, const Ref &a, const Shape &as, const Ref &b, const Shape &bs, RV out,
                     const Shape &os) {
  int64_t n = os.size(), na = as.size(), nb = bs.size();
  bool flat = (na == n || na == 1) && (nb == n || nb == 1);
  if (!flat) {
    for_each_index(
        os, {bstrides(as, os), bstrides(bs, os)},
        [&](const std::vector<RV> &o, RV t) { st(out, t, scalar_binary(op, load(a, o[0]), load(b, o[1]))); },
        bat.out);
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
  bool vectorisable = formula::binary_arithmetic_only(op);
  RV sa = nullptr, sb = nullptr;
  if (vectorisable && n >= vw) {
    sa = av0 ? splat(av0) : nullptr, sb = bv0 ? splat(bv0) : nullptr;
    if (sa) sa = rv(local_init(t_vec, "va", sa));
    if (sb) sb = rv(local_init(t_vec, "vb", sb));
  }
  vector_loop(
      n, bat.out, vectorisable,
      [&](RV t) {
        RV x = sa ? sa : vload(a, t);
        RV y = sb ? sb : vload(b, t);
        vst(out, t, formula_binary(op, JitValue{this, x, t_vec}, JitValue{this, y, t_vec}).v);
      },
      [&](RV t) { st(out, t, scalar_binary(op, elem_a(t), elem_b(t))); });
}

void Emitter::unary(UnaryOp op, const Ref &x, RV out, int64_t n) {
  vector_loop(
      n, bat.out, formula::unary_arithmetic_only(op),
      [&](RV t) {
        vst(out, t, formula_unary(op, JitValue{this, rv(local_init(t_vec, "vx", vload(x, t))), t_vec}).v);
      },
      [&](RV t) { st(out, t, scalar_unary(op, load(x, t))); });
}

void Emitter::select_op(const Ref &cnd, const Shape &cs, const Ref &a, const Shape &as, const Ref &b,
                        const Shape &bs, RV out, const Shape &os) {
  for_each_index(
      os, {bstrides(cs, os), bstrides(as, os), bstrides(bs, os)},
      [&](const std::vector<RV> &o, RV t) {
        RV test = cmp(GCC_JIT_COMPARISON_NE, load(cnd, o[0]), lit(0.0));
        st(out, t, select(test, load(a, o[1]), load(b, o[2])));
      },
      bat.out);
}

RV Emitter::sum_all(const Ref &x, int64_t n) {
  LV acc = local_init(t_double, "acc", lit(0.0));
  loop_x(0, n, 1, bat.in, [&](RV i) { assign(acc, dop(GCC_JIT_BINARY_OP_PLUS, rv(acc), load(x, i))); });
  return rv(acc);
}

std::vector<RV> Emitter::serial_sums(const std::vector<Ref> &xs, int64_t n, int64_t host_iterations,
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
  loop_x(done, n, 1, bat.in, add_at);
  std::vector<RV> totals;
  for (LV acc : accs) totals.push_back(rv(acc));
  return totals;
}

void Emitter::argmax_line(const Ref &x, RV base, int64_t len, int64_t step, LV &best_i, LV &best_v) {
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

void Emitter::axis_reduce(Op op, const Ref &x, const Shape &s, int axis, RV out) {
  int64_t outer, len, inner;
  axis_split(s, axis, outer, len, inner);
  // A batched operand: n-long along the axis (axis 0) or in the outer extent.
  bool rows_len = bat.in && axis == 0, rows_outer = bat.in && axis > 0;
  loop_x(0, outer, 1, rows_outer, [&](RV o) {
    RV dst = iadd(imul(o, inner), ix(0));
    RV src = imul(o, len * inner);
    if (op == Op::MaxAxis) {
      loop(0, inner, 1, [&](RV t) { st(out, iadd(dst, t), load(x, iadd(src, t))); });
      loop_x(1, len, 1, rows_len, [&](RV p) {
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
    loop_x(0, len, 1, rows_len, [&](RV p) {
      loop(0, inner, 1, [&](RV t) {
        LV d = elem(out, iadd(dst, t));
        assign(d, dop(GCC_JIT_BINARY_OP_PLUS, rv(d), load(x, iadd(src, iadd(imul(p, inner), t)))));
      });
    });
  });
  if (op == Op::MeanAxis) {
    RV count = rows_len ? once(gcc_jit_context_new_cast(c, nullptr, rows, t_double)) : lit(double(len));
    loop_x(0, outer * inner, 1, rows_outer,
           [&](RV i) { st(out, i, dop(GCC_JIT_BINARY_OP_DIVIDE, ld(out, i), count)); });
  }
}

void Emitter::max_mask(const Ref &x, const Shape &s, int axis, RV out) {
  int64_t n = s.size();
  loop_x(0, n, 1, bat.in, [&](RV i) { st(out, i, lit(0.0)); });
  if (axis < 0) {
    LV bi, bv;
    argmax_line(x, ix(0), n, 1, bi, bv);
    st(out, rv(bi), lit(1.0));
    return;
  }
  each_axis_argmax(x, s, axis, [&](RV, RV, RV base, LV bi, int64_t inner) {
    st(out, iadd(base, imul(rv(bi), inner)), lit(1.0));
  });
}

void Emitter::each_axis_argmax(const Ref &x, const Shape &s, int axis,
                               const std::function<void(RV, RV, RV, LV, int64_t)> &use) {
  int64_t outer, len, inner;
  axis_split(s, axis, outer, len, inner);
  loop_x(0, outer, 1, bat.in, [&](RV o) {
    loop(0, inner, 1, [&](RV t) {
      RV base = once_long(iadd(imul(o, len * inner), t));
      LV bi, bv;
      argmax_line(x, base, len, inner, bi, bv);
      use(o, t, base, bi, inner);
    });
  });
}

void Emitter::argmax_axis(const Ref &x, const Shape &s, int axis, RV out) {
  each_axis_argmax(x, s, axis, [&](RV o, RV t, RV, LV bi, int64_t inner) {
    st(out, iadd(imul(o, inner), t), gcc_jit_context_new_cast(c, nullptr, rv(bi), t_double));
  });
}

RV Emitter::checked_index(RV v, int64_t len, LV flag, LV bad) {
  v = once(v);
  // The range test first, so the conversion to long never overflows (valid_index,
  // tensor_ops.cpp).
  RV in_range = once_bool(dop(GCC_JIT_BINARY_OP_LOGICAL_AND, cmp(GCC_JIT_COMPARISON_GE, v, lit(0.0)),
                              cmp(GCC_JIT_COMPARISON_LT, v, lit(double(len))), t_bool));
  RV k = once_long(gcc_jit_context_new_cast(c, nullptr, select(in_range, v, lit(0.0)), t_long));
  RV whole = cmp(GCC_JIT_COMPARISON_EQ, gcc_jit_context_new_cast(c, nullptr, k, t_double), v);
  RV ok = once_bool(dop(GCC_JIT_BINARY_OP_LOGICAL_AND, in_range, whole, t_bool));
  RV first = dop(GCC_JIT_BINARY_OP_LOGICAL_AND,
                 gcc_jit_context_new_unary_op(c, nullptr, GCC_JIT_UNARY_OP_LOGICAL_NEGATE, t_bool, ok),
                 cmp(GCC_JIT_COMPARISON_EQ, rv(flag), lit(0.0)), t_bool);
  assign(bad, select(first, v, rv(bad)));
  assign(flag, select(ok, rv(flag), lit(1.0)));
  return once_long(select_long(ok, k, ix(0)));
}

void Emitter::each_indexed(const Shape &big, int axis, const Ref &idx, int64_t count, RV status,
                           const std::function<void(RV, RV)> &visit) {
  int64_t outer, len, inner;
  axis_split(big, axis, outer, len, inner);
  LV flag = local_init(t_double, "flag", lit(0.0)), bad = local_init(t_double, "bad", lit(0.0));
  if (inner == 1 && outer > 1) {
    // Single entries (the windows of a convolution): each index is checked once
    // first, then every line is visited in order, so the line's accesses run
    // along it instead of striding across it (the checks in the second pass
    // only keep a bad index in range; the first pass has reported it). Each
    // element of `big` still gets its visits in ascending j.
    loop_x(0, count, 1, bat.k, [&](RV j) { checked_index(load(idx, j), len, flag, bad); });
    LV f2 = local_init(t_double, "flag", lit(0.0)), b2 = local_init(t_double, "bad", lit(0.0));
    loop(0, outer, 1, [&](RV o) {
      RV big0 = once_long(imul(o, len)), line0 = once_long(imul(o, count));
      loop_x(0, count, 1, bat.k, [&](RV j) {
        RV at = iadd(big0, checked_index(load(idx, j), len, f2, b2));
        visit(at, iadd(line0, j));
      });
    });
  } else {
    loop_x(0, count, 1, bat.k, [&](RV j) {
      RV k = checked_index(load(idx, j), len, flag, bad);
      loop(0, outer, 1, [&](RV o) {
        RV big0 = once_long(imul(iadd(imul(o, len), k), inner));
        RV line0 = once_long(imul(iadd(imul(o, count), j), inner));
        loop(0, inner, 1, [&](RV t) { visit(iadd(big0, t), iadd(line0, t)); });
      });
    });
  }
  st(status, ix(0), rv(flag));
  st(status, ix(1), rv(bad));
}

void Emitter::take(const Ref &x, const Shape &big, int axis, const Ref &idx, int64_t count, RV out,
                   RV status) {
  each_indexed(big, axis, idx, count, status, [&](RV at, RV line_at) { st(out, line_at, load(x, at)); });
}

void Emitter::scatter_add(const Ref &g, const Shape &big, int axis, const Ref &idx, int64_t count, RV out,
                          RV status) {
  loop(0, big.size(), 1, [&](RV i) { st(out, i, lit(0.0)); });
  each_indexed(big, axis, idx, count, status, [&](RV at, RV line_at) {
    LV d = elem(out, at);
    assign(d, dop(GCC_JIT_BINARY_OP_PLUS, rv(d), load(g, line_at)));
  });
}

void Emitter::sum_to(const Ref &g, const Shape &gs, RV out, const Shape &target) {
  loop_x(0, target.size(), 1, bat.out, [&](RV i) { st(out, i, lit(0.0)); });
  for_each_index(
      gs, {bstrides(target, gs)},
      [&](const std::vector<RV> &o, RV t) {
        LV d = elem(out, o[0]);
        assign(d, dop(GCC_JIT_BINARY_OP_PLUS, rv(d), load(g, t)));
      },
      bat.in);
}

void Emitter::transpose(const Ref &x, const Shape &s, const int8_t *perm, RV out, const Shape &os) {
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

void Emitter::transpose2(const Ref &x, int64_t rows, int64_t cols, RV out,
                         const std::function<void()> *each) {
  // Square blocks of vw x vw: each output row segment is one vector, built from
  // vw loads down a column of x and written with one store (strided scalar
  // stores were the bottleneck: 1.8x slower on a 32x32 block, docs/performance.md).
  if (!each && vw > 1 && x.base && rows % vw == 0 && cols % vw == 0) {
    loop(0, rows, vw, [&](RV r0) {
      loop(0, cols, vw, [&](RV c0) {
        for (int64_t r = 0; r < vw; r++) {
          std::vector<RV> lanes(static_cast<size_t>(vw));
          for (int64_t q = 0; q < vw; q++)
            lanes[size_t(q)] = ld(x.base, iaddk(iadd(imul(iaddk(c0, q), rows), r0), r));
          vst(out, iadd(imul(iaddk(r0, r), cols), c0),
              gcc_jit_context_new_rvalue_from_vector(c, nullptr, t_vec, size_t(vw), lanes.data()));
        }
      });
    });
    return;
  }
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

void Emitter::copy_along(const Ref &x, int64_t src_len, int64_t src_at, RV out, int64_t dst_len,
                         int64_t dst_at, int64_t count, int64_t outer, int64_t inner) {
  loop(0, outer, 1, [&](RV o) {
    RV src0 = iaddk(imul(o, src_len * inner), src_at * inner);
    RV dst0 = iaddk(imul(o, dst_len * inner), dst_at * inner);
    loop(0, count * inner, 1, [&](RV t) { st(out, iadd(dst0, t), load(x, iadd(src0, t))); });
  });
}

void Emitter::par_chunks(const char *fn_prefix, RV nchunks, const std::vector<RV> &ctx_values,
                         const std::function<void(RV, RV)> &body) {
  gcc_jit_function *saved_fn = fn;
  gcc_jit_block *saved_cur = cur;
  gcc_jit_param *ps[2] = {gcc_jit_context_new_param(c, nullptr, t_voidp, "ctx"),
                          gcc_jit_context_new_param(c, nullptr, t_long, "chunk")};
  std::string name = fresh(fn_prefix);
  gcc_jit_function *chunk_fn =
      gcc_jit_context_new_function(c, nullptr, GCC_JIT_FUNCTION_INTERNAL, t_void, name.c_str(), 2, ps, 0);
  fn = chunk_fn;
  cur = block("entry");
  body(gcc_jit_context_new_cast(c, nullptr, gcc_jit_param_as_rvalue(ps[0]), t_dpp),
       gcc_jit_param_as_rvalue(ps[1]));
  gcc_jit_block_end_with_void_return(cur, nullptr);
  fn = saved_fn;
  cur = saved_cur;
  LV ctx =
      local(gcc_jit_context_new_array_type(c, nullptr, t_dptr, int(std::max<size_t>(1, ctx_values.size()))),
            "chunk_ctx");
  for (size_t q = 0; q < ctx_values.size(); q++)
    assign(gcc_jit_context_new_array_access(c, nullptr, rv(ctx), ix(int64_t(q))), ctx_values[q]);
  RV call_args[3] = {nchunks, gcc_jit_function_get_address(chunk_fn, nullptr),
                     gcc_jit_context_new_cast(c, nullptr, gcc_jit_lvalue_get_address(ctx, nullptr), t_voidp)};
  gcc_jit_block_add_eval(cur, nullptr, gcc_jit_context_new_call_through_ptr(c, nullptr, par, 3, call_args));
}

void Emitter::par_loop(int64_t n, const std::vector<RV> &bases,
                       const std::function<void(RV, RV, const std::vector<RV> &)> &body) {
  if (!par || n < kParallelElementwise) {
    body(ix(0), ix(n), bases);
    return;
  }
  int64_t chunks = (n + kElementwiseChunk - 1) / kElementwiseChunk;
  par_chunks("kiln_loop_chunk", ix(chunks), bases, [&](RV ptrs, RV chunk) {
    std::vector<RV> here(bases.size());
    for (size_t q = 0; q < bases.size(); q++) here[q] = rv(local_init(t_dptr, "p", ld(ptrs, ix(int64_t(q)))));
    RV lo = once_long(imul(chunk, kElementwiseChunk));
    RV end = once_long(iaddk(lo, kElementwiseChunk));
    RV hi = once_long(select_long(cmp(GCC_JIT_COMPARISON_LT, end, ix(n)), end, ix(n)));
    body(lo, hi, here);
  });
}

}  // namespace kiln::jit

// kernel_emitter.h — the libgccjit building blocks of a kernel and one lowering
// per graph op (Emitter), used by emit_kernel (codegen.h) to turn a planned
// graph (kernel_plan.h) into C.
//
// Invariants:
//   * Every shape and loop bound is a compile-time constant of the generated code,
//     except, in a batch family's kernel (batch_family.h), the extents `bat`
//     marks n-long, which only loop bounds (and chunk counts) read.
//   * Each op has exactly one lowering, used for forward and backward graphs
//     alike, and its loops perform, for every output element, the same sequence
//     of IEEE operations as the runtime/tensor_ops.h kernel graph.h names for that op
//     (k ascending in matmul, row-major sums from 0.0, one division for a mean, no
//     fused multiply-add: contexts come from jit_new_context with
//     -ffp-contract=off). Vectors only ever span independent output elements.
//   * Generated code never branches on data: a choice between two values is a
//     bit-mask blend (select), so loops stay straight-line.
//   * The emitted text depends only on the calls made, in order: local and block
//     names come from one counter, so the same graph gives the same C (the disk
//     cache and KILN_JIT_DUMP rely on it).
#pragma once
#include <fmt/format.h>
#include <libgccjit.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/graph.h"

// In their own namespace: Ref and Emitter are short names, seen only by the
// lowering's two files.
namespace kiln::jit {

using RV = gcc_jit_rvalue *;
using LV = gcc_jit_lvalue *;

// Where an operand's elements come from: a buffer, or one scalar literal that
// stands for every element (a scalar Const of any shape).
struct Ref {
  RV base = nullptr;
  double scalar = 0.0;
  // Only for a matmul's operand: the buffer holds the operand's transpose (left:
  // k x m, row length `ld` = m; right: n x k, `ld` = k), read in place instead
  // of copied.
  bool transposed = false;
  int64_t ld = 0;
  // Only for a Take or ScatterAdd node's own Ref: where it stores its index
  // status (kernel_plan.h), two doubles of the scratch area.
  RV status = nullptr;
  // Batch families: a size-derived scalar (batch_family.h) of value scale * n,
  // or numer / (scale * n) when numer is not 0, n the kernel's run-time
  // leading size (scale 0: `scalar` is the value).
  int64_t scale = 0;
  double numer = 0.0;
};

// Emits into one function at a time: `fn` and its current block `cur`.
struct Emitter {
  // ---- building blocks -------------------------------------------------------
  gcc_jit_context *c;
  gcc_jit_function *fn = nullptr;
  gcc_jit_block *cur = nullptr;
  gcc_jit_type *t_void, *t_double, *t_long, *t_int, *t_bool, *t_dptr, *t_dpp, *t_vec, *t_vecu, *t_vecu_ptr;
  gcc_jit_type *t_voidp, *t_chunk_fn, *t_par_fn;
  gcc_jit_type *t_ulong, *t_vlong, *t_vulong;  // the integer types of tanh's bit operations
  RV par = nullptr;                            // the kernel's `par` parameter; null: every matmul is serial
  int vw;
  int counter = 0;

  // Types in `ctx`; fn and cur are set by the caller before emitting code.
  explicit Emitter(gcc_jit_context *ctx);

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
  LV local_init(gcc_jit_type *t, const char *prefix, RV init);
  void assign(LV l, RV v) { gcc_jit_block_add_assignment(cur, nullptr, l, v); }
  gcc_jit_block *block(const char *prefix) { return gcc_jit_function_new_block(fn, fresh(prefix).c_str()); }

  LV elem(RV base, RV i) { return gcc_jit_context_new_array_access(c, nullptr, base, i); }
  RV ld(RV base, RV i) { return rv(elem(base, i)); }
  void st(RV base, RV i, RV v) { assign(elem(base, i), v); }
  RV load(const Ref &r, RV i) { return r.base ? ld(r.base, i) : r.scale ? size_value(r) : lit(r.scalar); }

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
  RV vload(const Ref &r, RV i) { return r.base ? vld(r.base, i) : splat(load(r, i)); }

  // for (i = lo; i < hi; i += step) body(i), with (hi - lo) % step == 0.
  void loop(int64_t lo, int64_t hi, int64_t step, const std::function<void(RV)> &body);

  // ---- batch families (batch_family.h) ----------------------------------------
  // In a family's kernel, `rows` is the run-time leading size n (a long) in
  // the function being emitted and `planned_rows` the N the kernel is planned
  // at; `bat` says which extents of the lowering being emitted are n-long:
  // the result's leading axis (out), the first operand's (in), a matmul's
  // inner length (k). All false (and rows null) outside a family: every
  // extent is the constant it was, and the emitted code is unchanged.
  RV rows = nullptr;
  int64_t planned_rows = 0;
  struct Extents {
    bool out = false, in = false, k = false;
  } bat;
  // The run-time value of an extent that is `planned` long at N: planned / N * n.
  RV extent(int64_t planned) { return once_long(imul(rows, planned / planned_rows)); }
  // A size-derived scalar: the same IEEE operation the trace's folding made.
  RV size_value(const Ref &r) {
    RV count = gcc_jit_context_new_cast(c, nullptr, imul(rows, r.scale), t_double);
    return r.numer != 0.0 ? dop(GCC_JIT_BINARY_OP_DIVIDE, lit(r.numer), count) : count;
  }
  // for (i = lo; i < hi; i += step) with run-time bounds (no trip when hi <= lo).
  void loop_rt(RV lo, RV hi, int64_t step, const std::function<void(RV)> &body);
  // loop(lo, hi, step), hi being n-long when `batched`.
  void loop_x(int64_t lo, int64_t hi, int64_t step, bool batched, const std::function<void(RV)> &body) {
    if (batched) loop_rt(ix(lo), extent(hi), step, body);
    else loop(lo, hi, step, body);
  }
  // The vector loop of an n-element element-wise lowering and its scalar tail.
  void vector_loop(int64_t n, bool batched, bool vectorised, const std::function<void(RV)> &vec,
                   const std::function<void(RV)> &scalar);

  // cond ? a : b without control flow (libgccjit has no conditional expression):
  // picks the bit pattern through an all-ones/all-zeros mask, so the loops stay
  // straight-line. (Branches inside nested loops, if-converted and vectorised by
  // GCC 12 at -march=x86-64-v3/v4, gave wrong elements: see docs/jit.md.)
  RV mask_of(RV cond);
  RV blend_long(RV mask, RV a, RV b);
  RV select(RV cond, RV a, RV b);
  RV select_long(RV cond, RV a, RV b) { return blend_long(mask_of(cond), a, b); }

  // Imported C library functions of one double (or two for pow).
  gcc_jit_function *libm(const char *name, int nargs);
  RV call1(const char *name, RV x) { return gcc_jit_context_new_call(c, nullptr, libm(name, 1), 1, &x); }
  RV call2(const char *name, RV x, RV y) {
    RV a[2] = {x, y};
    return gcc_jit_context_new_call(c, nullptr, libm(name, 2), 2, a);
  }
  RV builtin1(const char *name, RV x) {
    return gcc_jit_context_new_call(c, nullptr, gcc_jit_context_get_builtin_function(c, name), 1, &x);
  }
  std::map<std::string, gcc_jit_function *> imported;
  // Allreduce: a call to kiln_allreduce_leaf (collective.h), which the kiln binary
  // exports; x may be a scalar Ref (a constant), passed through a local.
  void allreduce(const Ref &x, RV out, int64_t n, int kind, uint64_t signature);

  // Snapshot an expression into a local so it is evaluated once.
  RV once(RV x) { return rv(local_init(t_double, "v", x)); }
  RV once_bool(RV x) { return rv(local_init(t_bool, "t", x)); }
  RV once_long(RV x) { return rv(local_init(t_long, "o", x)); }

  // ---- scalar element operations: apply_binary / apply_unary (tensor_ops.cpp) ----
  // Every element-wise op's formula, runtime/elementwise_formulas.h, instantiated
  // on libgccjit values (formula_binary / formula_unary below).
  RV scalar_binary(BinaryOp op, RV x, RV y);
  RV scalar_unary(UnaryOp op, RV x);
  // k_random: n draws of `kind` from the rank-0 key into out, the key checked as
  // random_key_of_double does (a bad key draws from key 0); status[0] becomes
  // 1.0 for a bad key (status[1] the key), else 0.0, on every call.
  void random(RandomKind kind, const Ref &key, RV out, int64_t n, RV status);

  // Calls body(offsets, out_offset) for every index of `os` in row-major order;
  // offsets[q] = sum over dims of index * strides[q][dim].
  // With `rows0`, os's leading axis is n-long (batch families).
  void for_each_index(const Shape &os, const std::vector<std::vector<int64_t>> &strides,
                      const std::function<void(const std::vector<RV> &, RV)> &body, bool rows0 = false);

  // Strides of an operand of shape s read at the indices of output shape os
  // (tensor_ops.cpp broadcast_strides): broadcast dimensions get stride 0.
  static std::vector<int64_t> bstrides(const Shape &s, const Shape &os);

  // ---- op lowerings: loops over whole operands -------------------------------

  void binary(BinaryOp op, const Ref &a, const Shape &as, const Ref &b, const Shape &bs, RV out,
              const Shape &os);

  void unary(UnaryOp op, const Ref &x, RV out, int64_t n);

  void select_op(const Ref &cnd, const Shape &cs, const Ref &a, const Shape &as, const Ref &b,
                 const Shape &bs, RV out, const Shape &os);

  // 0.0 + x[0] + x[1] + ... (k_sum)
  RV sum_all(const Ref &x, int64_t n);
  // Independent serial sums of xs (each n long) in one loop: each is still its
  // own chain from 0.0 in row-major order, but the chains' additions overlap,
  // so together they take the latency of one (a serial sum is bound by the
  // add's latency). With a host, host(each) emits a loop that calls each()
  // `host_iterations` times in order; every call adds the next elements to the
  // chains, and a plain loop adds what is left.
  std::vector<RV> serial_sums(const std::vector<Ref> &xs, int64_t n, int64_t host_iterations,
                              const std::function<void(const std::function<void()> &)> &host);

  // The first maximal element, or the first NaN (k_argmax), over x[base + p*step]
  // for p in [0, len): returns the index p as a local and its value.
  void argmax_line(const Ref &x, RV base, int64_t len, int64_t step, LV &best_i, LV &best_v);

  // tensor_ops_simd.inc sum_axis / max_axis: each output element's chain runs
  // along the axis in ascending order.
  void axis_reduce(Op op, const Ref &x, const Shape &s, int axis, RV out);

  void max_mask(const Ref &x, const Shape &s, int axis, RV out);

  // k_argmax_axis: argmax_line per line, the index stored as a double.
  void argmax_axis(const Ref &x, const Shape &s, int axis, RV out);
  // For every line along `axis` (outer index o, inner index t, the line's first
  // offset base): its argmax_line index bi, passed to use(o, t, base, bi, inner).
  void each_axis_argmax(const Ref &x, const Shape &s, int axis,
                        const std::function<void(RV, RV, RV, LV, int64_t)> &use);

  // k_take / k_scatter_add, `big` being the shape indexed along `axis` (Take's
  // operand, ScatterAdd's result) and idx `count` entries: j outermost and
  // ascending, as there. Every index goes through checked_index; the status
  // (kernel_plan.h) is stored at status[0..1] when the loop ends.
  void take(const Ref &x, const Shape &big, int axis, const Ref &idx, int64_t count, RV out, RV status);
  void scatter_add(const Ref &g, const Shape &big, int axis, const Ref &idx, int64_t count, RV out,
                   RV status);
  // The loop nest of take and scatter_add: visit(at, line_at) for every index
  // entry j and every element of its line, `at` the element's offset in `big`
  // (the entry checked), line_at its offset in the count-long result or operand.
  void each_indexed(const Shape &big, int axis, const Ref &idx, int64_t count, RV status,
                    const std::function<void(RV, RV)> &visit);
  // k_bad_index's test of entry v against [0, len), without a branch: returns
  // the index as a long, 0 for a bad entry (so every read stays in bounds),
  // and records the first bad entry: flag becomes 1.0, bad the entry.
  RV checked_index(RV v, int64_t len, LV flag, LV bad);

  // k_sum_to: walk g in row-major order, adding each element to the target
  // element it broadcast from.
  void sum_to(const Ref &g, const Shape &gs, RV out, const Shape &target);

  void transpose(const Ref &x, const Shape &s, const int8_t *perm, RV out, const Shape &os);

  // out (rows x cols) = x^T, in bands of 8 output rows: each input read is a run
  // of 8 neighbours in one cache line and 8 output lines fill together. The
  // plain loop read a column of x per output row, one cache line per element,
  // at a stride that maps every line to the same few L1 sets. `each`, if given,
  // is emitted once per column of every full band (see serial_sums).
  void transpose2(const Ref &x, int64_t rows, int64_t cols, RV out,
                  const std::function<void()> *each = nullptr);

  void copy(const Ref &x, RV out, int64_t n) {
    loop_x(0, n, 1, bat.out, [&](RV i) { st(out, i, load(x, i)); });
  }

  // k_copy_along: for every outer index, entries [src_at, src_at + count) of
  // x's line (src_len long) go to [dst_at, ...) of out's (dst_len long).
  void copy_along(const Ref &x, int64_t src_len, int64_t src_at, RV out, int64_t dst_len, int64_t dst_at,
                  int64_t count, int64_t outer, int64_t inner);

  // Work split into nchunks pieces run through `par` (Kiln's thread pool): emits
  // the chunk function `void FN_PREFIXn(void *ctx, long chunk)`, whose code
  // body(ptrs, chunk) emits (ptrs: ctx as a double **), then in the kernel the
  // ctx array of ctx_values (the kernel's pointers, the chunk function's only
  // view of them) and the call par(nchunks, FN_PREFIXn, ctx).
  void par_chunks(const char *fn_prefix, RV nchunks, const std::vector<RV> &ctx_values,
                  const std::function<void(RV, RV)> &body);

  // An element-wise loop over [0, n): body(lo, hi, bases') emits the loop over
  // [lo, hi) reading and writing the buffers bases' (bases, or their copies in
  // a chunk function). From kParallelElementwise elements on (and with `par`),
  // the loop is split into chunks of kElementwiseChunk run through `par`: each
  // element is still computed by the same operations, once, so the thread
  // count changes no bit. (The SGD update of a 1024-wide layer, 8 MB passes, was
  // a serial tenth of a step: docs/performance.md.)
  static constexpr int64_t kParallelElementwise = int64_t(1) << 18;
  static constexpr int64_t kElementwiseChunk = int64_t(1) << 17;
  void par_loop(int64_t n, const std::vector<RV> &bases,
                const std::function<void(RV, RV, const std::vector<RV> &)> &body);

  // c = a * b: R x V register tiles of vectors over (i, j), k ascending inside
  // each tile, every accumulator starting from 0.0 (tensor_ops_simd.inc micro).
  // Rows [row0, row0 + m) of c = a * b (row0 may be a run-time value).
  // m_rt: the number of rows at run time (batch families; m is then its bound).
  // With col0, only columns [col0, col0 + width) (col0 may be a run-time value).
  void matmul_rows(const Ref &a, const Ref &b, RV cbuf, RV row0, int64_t m, int64_t k, int64_t n,
                   RV m_rt = nullptr, RV col0 = nullptr, int64_t width = 0);

  // c = a * b. Above the same work crossover as k_matmul, blocks of rows (or,
  // for a short, wide product, of columns) become chunks of a separate function
  // run through the `par` callback (Kiln's thread pool): each output element is
  // still computed by one chain, so the thread count cannot change a bit.
  void matmul(const Ref &a, const Ref &b, RV cbuf, int64_t m, int64_t k, int64_t n);

  // Offset of a[i][kk] in a's buffer.
  RV a_index(const Ref &a, RV i, RV kk, int64_t k) {
    return a.transposed ? iadd(imul(kk, a.ld), i) : iadd(imul(i, k), kk);
  }

  // Offset of b[kk][j] in b's buffer.
  RV b_index(const Ref &b, RV kk, RV j, int64_t n) {
    return b.transposed ? iadd(imul(j, b.ld), kk) : iadd(imul(kk, n), j);
  }

  // An r x v-vector tile of c at (i0, j0); with `packed`, b's columns j0.. are
  // read from that pack (k rows of v vectors, pack_transposed).
  void tile(const Ref &a, const Ref &b, RV cbuf, RV i0, int r, RV j0, int v, int64_t k, int64_t n,
            RV packed = nullptr);
  // pk (k x w, row-major) = columns [j0, j0 + w) of b, a transpose read in place.
  void pack_transposed(const Ref &b, RV j0, int64_t k, int64_t w, RV pk);

  void scalar_tile(const Ref &a, const Ref &b, RV cbuf, RV i0, int r, RV j, int64_t k, int64_t n);
};

// A libgccjit value with C++'s arithmetic operators, so a formula written once as
// a template (runtime/gelu_formula.h, random_keys.h) emits here exactly the
// operations, in the order, that the C++ instantiations compute. Every
// operation's result is kept in a local of the function being emitted. `t` is
// t_double, t_vec or t_ulong; constants take its type (splatted for t_vec).
struct JitValue {
  Emitter *e;
  RV v;
  gcc_jit_type *t;
};
JitValue operator+(const JitValue &a, const JitValue &b);
JitValue operator-(const JitValue &a, const JitValue &b);
JitValue operator*(const JitValue &a, const JitValue &b);
JitValue operator^(const JitValue &a, const JitValue &b);
JitValue operator+(double k, const JitValue &b);
JitValue operator*(double k, const JitValue &b);
JitValue operator+(const JitValue &a, uint64_t k);
JitValue operator*(const JitValue &a, uint64_t k);
JitValue operator^(const JitValue &a, uint64_t k);
JitValue operator>>(const JitValue &a, int k);  // logical: t is unsigned
JitValue operator-(const JitValue &a);
JitValue operator/(double k, const JitValue &b);
JitValue operator<<(const JitValue &a, int k);
JitValue operator/(const JitValue &a, const JitValue &b);
JitValue operator&(const JitValue &a, const JitValue &b);
JitValue operator|(const JitValue &a, const JitValue &b);
JitValue operator~(const JitValue &a);
JitValue operator+(const JitValue &a, double k);
JitValue operator-(const JitValue &a, double k);
JitValue operator*(const JitValue &a, double k);
JitValue operator&(const JitValue &a, int64_t k);
JitValue operator+(const JitValue &a, int64_t k);
JitValue operator-(const JitValue &a, int64_t k);
JitValue operator+(int64_t k, const JitValue &b);
JitValue operator-(int64_t k, const JitValue &b);

// An element-wise op's formula (runtime/elementwise_formulas.h) emitted on x (and
// y): t_double, or t_vec for the ops that are arithmetic only.
JitValue formula_binary(BinaryOp op, const JitValue &x, const JitValue &y);
JitValue formula_unary(UnaryOp op, const JitValue &x);

}  // namespace kiln::jit

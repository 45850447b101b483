// kernel_emitter_matmul.cpp — the matmul lowering: row and column tiles of
// vector accumulators, b's columns packed when read across, and the order of the
// k sums of k_matmul_reference (runtime/tensor_ops.h), so kernels give its bits
// (see kernel_emitter.h).
#include <algorithm>

#include "compiler/kernel_emitter.h"
#include "compiler/kernel_plan.h"
#include "runtime/error.h"

namespace kiln::jit {

// Every tile reads a k-long stripe of b: when b does not fit in L2 but a stripe
// does, the column tiles go outermost (matmul_rows), so each stripe is read from
// memory once and stays cached across the row tiles.
constexpr int64_t kL2Bytes = 256 << 10;
static bool stripes_outer(int64_t k, int64_t n, int64_t tile_w) {
  return k * n * 8 > kL2Bytes && k * tile_w * 8 <= kL2Bytes;
}

void Emitter::matmul_rows(const Ref &a, const Ref &b, RV cbuf, RV row0, int64_t m, int64_t k, int64_t n,
                          RV m_rt, RV col0, int64_t width) {
  const int R = 4;
  const int V = vw >= 8 ? 4 : 3;
  if (!col0) {
    col0 = ix(0);
    width = n;
  }
  // each_row_tile(t): t(i0, r) for every tile of rows: 4 rows while they last,
  // then the 1 to 3 left (chosen at run time in a batch family).
  auto each_row_tile = [&](const std::function<void(RV, int)> &t) {
    if (m_rt) {
      RV mfull_rt = once_long(imul(dop(GCC_JIT_BINARY_OP_DIVIDE, m_rt, ix(R), t_long), R));
      loop_rt(ix(0), mfull_rt, R, [&](RV i) { t(iadd(row0, i), R); });
      RV left = once_long(dop(GCC_JIT_BINARY_OP_MINUS, m_rt, mfull_rt, t_long));
      RV at = once_long(iadd(row0, mfull_rt));
      gcc_jit_block *done = block("rows_done");
      for (int r = 1; r < R; r++) {
        gcc_jit_block *tail = block("rows_tail"), *next = block("rows_next");
        gcc_jit_block_end_with_conditional(cur, nullptr, cmp(GCC_JIT_COMPARISON_EQ, left, ix(r)), tail, next);
        cur = tail;
        t(at, r);
        gcc_jit_block_end_with_jump(cur, nullptr, done);
        cur = next;
      }
      gcc_jit_block_end_with_jump(cur, nullptr, done);
      cur = done;
      return;
    }
    int64_t mfull = m / R * R;
    loop(0, mfull, R, [&](RV i) { t(iadd(row0, i), R); });
    if (m > mfull) t(iaddk(row0, mfull), int(m - mfull));
  };
  // each_column_tile(t): t(j0, v) for every tile of columns in [col0, col0 +
  // width): v vectors wide from j0, or (v = 0) the scalar column j0.
  int64_t full = width / (V * vw) * (V * vw);
  int nv = int((width - full) / vw);
  auto each_column_tile = [&](const std::function<void(RV, int)> &t) {
    loop(0, full, V * vw, [&](RV j) { t(iadd(col0, j), V); });
    if (nv > 0) t(iaddk(col0, full), nv);
    for (int64_t j = full + int64_t(nv) * vw; j < width; j++) t(iaddk(col0, j), 0);
  };
  auto one_tile = [&](RV i0, int r, RV j0, int v) {
    if (v > 0) tile(a, b, cbuf, i0, r, j0, v, k, n);
    else scalar_tile(a, b, cbuf, i0, r, j0, k, n);
  };
  // A transpose read in place as b (g W^T in a backward pass, without the
  // copy of W^T): each full stripe is gathered into a k x V*vw pack on the
  // stack once, then every row tile reads the pack like a plain stripe.
  if (b.transposed) {
    if (bat.k) throw_errorf("jit: internal error: a transposed right operand with a run-time inner length");
    RV pk = nullptr;
    each_column_tile([&](RV j0, int v) {
      if (v < V) return each_row_tile([&](RV i0, int r) { one_tile(i0, r, j0, v); });
      if (!pk) {
        gcc_jit_type *arr = gcc_jit_context_new_array_type(c, nullptr, t_double, int(k * V * vw));
        LV buf =
            gcc_jit_function_new_local(fn, nullptr, gcc_jit_type_get_aligned(arr, 64), fresh("pack").c_str());
        pk = rv(local_init(t_dptr, "pk",
                           gcc_jit_lvalue_get_address(
                               gcc_jit_context_new_array_access(c, nullptr, rv(buf), ix(0)), nullptr)));
      }
      pack_transposed(b, j0, k, int64_t(V) * vw, pk);
      each_row_tile([&](RV i0, int r) { tile(a, b, cbuf, i0, r, j0, V, k, n, pk); });
    });
    return;
  }
  // Rows outermost streamed all of b from memory once per 4 rows (at
  // 64x1024x1024, 3.8x the time per multiply-add of the 1024x64x1024 product,
  // docs/performance.md). Each element is still one chain, k ascending: the
  // order of tiles changes no bit.
  if (stripes_outer(k, n, V * vw))
    each_column_tile([&](RV j0, int v) { each_row_tile([&](RV i0, int r) { one_tile(i0, r, j0, v); }); });
  else each_row_tile([&](RV i0, int r) { each_column_tile([&](RV j0, int v) { one_tile(i0, r, j0, v); }); });
}

void Emitter::matmul(const Ref &a, const Ref &b, RV cbuf, int64_t m, int64_t k, int64_t n) {
  // A family's kernel: m (the planned N) rows at most, `rows` at run time.
  RV m_rt = bat.out ? rows : nullptr;
  const int64_t tile_w = (vw >= 8 ? 4 : 3) * vw;
  // A short, wide product whose b does not fit in L2 (64x1024x1024: x W and
  // g W^T of a wide MLP at batch 64) is split by columns: each chunk reads its
  // stripes of b once, for all rows, while a stays cached. Split by rows, every
  // chunk of 8 rows read all of b again: b came from memory m/8 times. A tall
  // product (1024x64x1024, the weight gradient x^T g) keeps rows: by columns,
  // every stripe re-read all of a (3.05 against 2.4 ms, docs/performance.md).
  bool by_columns = stripes_outer(k, n, tile_w) && m * 4 <= n && m * k * 8 <= 4 * kL2Bytes && n >= 2 * tile_w;
  if (!par || m * k * n < kParallelMatmulWork || (m < 8 && !by_columns)) {
    matmul_rows(a, b, cbuf, ix(0), m, k, n, m_rt);
    return;
  }
  // Chunks of at most about kPolledMatmulWork multiply-adds, since Ctrl-C is
  // answered between chunks (kernel_par): a 6000^2 product in 8 chunks held it
  // off for seconds. Split by rows: whole 4-row blocks, every block streaming
  // all of b whatever the chunk, so small chunks cost only their calls. Split
  // by columns: whole column tiles, the last chunk taking the ragged columns.
  int64_t per_chunk, chunks, last;  // rows or columns
  if (by_columns) {
    int64_t tiles = n / tile_w;
    int64_t tiles_for_work = std::max<int64_t>(1, kPolledMatmulWork / (m * k * tile_w));
    int64_t tiles_per_chunk = std::max<int64_t>(1, std::min(tiles / 8, tiles_for_work));
    per_chunk = tiles_per_chunk * tile_w;
    chunks = (tiles + tiles_per_chunk - 1) / tiles_per_chunk;
    last = n - (chunks - 1) * per_chunk;
  } else {
    int64_t rows_for_work = std::max<int64_t>(1, kPolledMatmulWork / (k * n));
    per_chunk = std::max<int64_t>(4, (std::min(m / 8, rows_for_work) + 3) / 4 * 4);
    chunks = (m + per_chunk - 1) / per_chunk;
    last = m - (chunks - 1) * per_chunk;
  }

  // The chunk function: void mmN(void *ctx, long chunk), ctx = {a, b, c} and,
  // in a batch family, the address of the run-time leading size.
  RV null = gcc_jit_context_null(c, t_dptr);
  std::vector<RV> ctx_values = {a.base ? a.base : null, b.base ? b.base : null, cbuf};
  RV nchunks = ix(chunks);
  if (rows) {
    LV held = local_init(t_long, "rows", rows);
    ctx_values.push_back(
        gcc_jit_context_new_cast(c, nullptr, gcc_jit_lvalue_get_address(held, nullptr), t_dptr));
    if (m_rt && !by_columns)
      nchunks = once_long(dop(GCC_JIT_BINARY_OP_DIVIDE, iaddk(m_rt, per_chunk - 1), ix(per_chunk), t_long));
  }
  par_chunks("kiln_matmul_chunk", nchunks, ctx_values, [&](RV ptrs, RV chunk) {
    Ref ca = a, cb = b;
    if (a.base) ca.base = rv(local_init(t_dptr, "a", ld(ptrs, ix(0))));
    if (b.base) cb.base = rv(local_init(t_dptr, "b", ld(ptrs, ix(1))));
    RV cc = rv(local_init(t_dptr, "c", ld(ptrs, ix(2))));
    RV first = rv(local_init(t_long, "first", imul(chunk, per_chunk)));  // row or column
    RV saved_rows = rows;
    if (rows) {  // the run-time leading size, passed in ctx[3]
      gcc_jit_type *t_long_ptr = gcc_jit_type_get_pointer(t_long);
      rows = once_long(gcc_jit_lvalue_as_rvalue(gcc_jit_rvalue_dereference(
          gcc_jit_context_new_cast(c, nullptr, ld(ptrs, ix(3)), t_long_ptr), nullptr)));
    }
    // part(count): the chunk's rows or columns, `count` of them.
    auto part = [&](int64_t count) {
      if (by_columns) matmul_rows(ca, cb, cc, ix(0), m, k, n, m_rt ? rows : nullptr, first, count);
      else matmul_rows(ca, cb, cc, first, count, k, n);
    };
    if (m_rt && !by_columns) {  // this chunk's rows: per_chunk, or what is left of n
      RV left = once_long(dop(GCC_JIT_BINARY_OP_MINUS, rows, first, t_long));
      RV here = once_long(select_long(cmp(GCC_JIT_COMPARISON_LT, left, ix(per_chunk)), left, ix(per_chunk)));
      matmul_rows(ca, cb, cc, first, per_chunk, k, n, here);
    } else if (last == per_chunk) {
      part(per_chunk);
    } else {
      gcc_jit_block *full = block("full"), *tail = block("last");
      gcc_jit_block_end_with_conditional(cur, nullptr, cmp(GCC_JIT_COMPARISON_LT, chunk, ix(chunks - 1)),
                                         full, tail);
      cur = full;
      part(per_chunk);
      gcc_jit_block_end_with_void_return(cur, nullptr);
      cur = tail;
      part(last);
    }
    rows = saved_rows;
  });
}

void Emitter::tile(const Ref &a, const Ref &b, RV cbuf, RV i0, int r, RV j0, int v, int64_t k, int64_t n,
                   RV packed) {
  std::vector<LV> acc(size_t(r * v));
  RV zero = splat(lit(0.0));
  for (auto &l : acc) l = local_init(t_vec, "acc", zero);
  int64_t w = int64_t(v) * vw;  // a pack's row length
  loop_x(0, k, 1, bat.k, [&](RV kk) {
    std::vector<RV> bv(static_cast<size_t>(v));
    for (int q = 0; q < v; q++) {
      RV vec;
      if (packed) {
        vec = vld(packed, iaddk(imul(kk, w), int64_t(q) * vw));
      } else if (b.transposed) {  // a ragged stripe of a transpose read in place
        std::vector<RV> lanes(static_cast<size_t>(vw));
        for (int l = 0; l < vw; l++)
          lanes[size_t(l)] = load(b, b_index(b, kk, iaddk(j0, int64_t(q) * vw + l), n));
        vec = gcc_jit_context_new_rvalue_from_vector(c, nullptr, t_vec, size_t(vw), lanes.data());
      } else {
        vec = vload(b, iadd(imul(kk, n), iaddk(j0, int64_t(q) * vw)));
      }
      bv[size_t(q)] = rv(local_init(t_vec, "bv", vec));
    }
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

void Emitter::pack_transposed(const Ref &b, RV j0, int64_t k, int64_t w, RV pk) {
  // pk[kk * w + q] = b[kk][j0 + q] = x[(j0 + q) * ld + kk], x the transpose's
  // input: vw x vw blocks, each row segment of pk one vector gathered from vw
  // rows of x (each row of x is read along kk, a cache line at a time).
  int64_t kfull = k / vw * vw;
  loop(0, kfull, vw, [&](RV kk0) {
    for (int64_t q0 = 0; q0 < w; q0 += vw)
      for (int64_t t = 0; t < vw; t++) {
        std::vector<RV> lanes(static_cast<size_t>(vw));
        for (int64_t l = 0; l < vw; l++)
          lanes[size_t(l)] = ld(b.base, iaddk(iadd(imul(iaddk(j0, q0 + l), b.ld), kk0), t));
        vst(pk, iaddk(imul(kk0, w), t * w + q0),
            gcc_jit_context_new_rvalue_from_vector(c, nullptr, t_vec, size_t(vw), lanes.data()));
      }
  });
  loop(kfull, k, 1, [&](RV kk) {
    for (int64_t q = 0; q < w; q++)
      st(pk, iaddk(imul(kk, w), q), ld(b.base, iadd(imul(iaddk(j0, q), b.ld), kk)));
  });
}

void Emitter::scalar_tile(const Ref &a, const Ref &b, RV cbuf, RV i0, int r, RV j, int64_t k, int64_t n) {
  std::vector<LV> acc(static_cast<size_t>(r));
  for (auto &l : acc) l = local_init(t_double, "acc", lit(0.0));
  loop_x(0, k, 1, bat.k, [&](RV kk) {
    RV bvv = once(load(b, b_index(b, kk, j, n)));
    for (int rr = 0; rr < r; rr++) {
      RV prod = dop(GCC_JIT_BINARY_OP_MULT, load(a, a_index(a, iaddk(i0, rr), kk, k)), bvv);
      assign(acc[size_t(rr)], dop(GCC_JIT_BINARY_OP_PLUS, rv(acc[size_t(rr)]), prod));
    }
  });
  for (int rr = 0; rr < r; rr++) st(cbuf, iadd(imul(iaddk(i0, rr), n), j), rv(acc[size_t(rr)]));
}

}  // namespace kiln::jit

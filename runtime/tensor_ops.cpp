// tensor_ops.cpp — shapes, broadcasting, reductions, transpose and matmul
// threading on raw buffers. The orders of operations are fixed in tensor_ops.h.
#include "runtime/tensor_ops.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/elementwise_formulas.h"
#include "runtime/eval.h"
#include "runtime/tensor_ops_dispatch.h"
#include "runtime/threadpool.h"

namespace kiln {

std::string shape_string(const Shape &s) {
  if (s.rank == 0) return "scalar";
  std::string out;
  for (int i = 0; i < s.rank; i++) {
    if (i) out += 'x';
    out += std::to_string(s.dim[i]);
  }
  return out;
}

bool broadcast_shapes(const Shape &a, const Shape &b, Shape &out) {
  // The common cases of a training step (a number and a tensor, two tensors of
  // one shape) skip the per-dimension walk.
  if (b.rank == 0 || a == b) {
    out = a;
    return true;
  }
  if (a.rank == 0) {
    out = b;
    return true;
  }
  Shape r;
  r.rank = std::max(a.rank, b.rank);
  for (int i = 0; i < r.rank; i++) {
    // Align from the right.
    int ia = a.rank - r.rank + i, ib = b.rank - r.rank + i;
    int64_t da = ia >= 0 ? a.dim[ia] : 1, db = ib >= 0 ? b.dim[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    r.dim[i] = da == 1 ? db : da;
  }
  out = r;
  return true;
}

// The formulas are elementwise_formulas.h's, on double: one case per row.
double apply_binary(BinaryOp op, double x, double y) {
  double r = 0.0;
  switch (op) {
#define KILN_X(e, ...) \
  case BinaryOp::e: formula::binary<BinaryOp::e, tanh_formula::ScalarKit>(x, y, r); break;
    KILN_BINARY_ARITH_OPS(KILN_X) KILN_COMPARE_OPS(KILN_X)
#undef KILN_X
  }
  return r;
}

double apply_unary(UnaryOp op, double x) {
  double r = 0.0;
  switch (op) {
#define KILN_X(e, ...) \
  case UnaryOp::e: formula::unary<UnaryOp::e, tanh_formula::ScalarKit>(x, r); break;
    KILN_UNARY_OPS(KILN_X)
#undef KILN_X
  }
  return r;
}

// Element-wise loops over many elements run in pieces, polling for Ctrl-C
// between them: an op over 10^8 elements takes seconds (tens on a busy
// machine). A piece is a run of whole elements, so no element's operations
// change; 2^16 elements take well under a millisecond.
constexpr int64_t kPolledPiece = int64_t(1) << 16;

// Strides (in elements) of a row-major tensor of shape `s` when indexed by an
// output index of shape `os`; broadcast dimensions get stride 0.
static void broadcast_strides(const Shape &s, const Shape &os, int64_t *stride) {
  int64_t st = 1;
  for (int i = os.rank - 1; i >= 0; i--) {
    int is = s.rank - os.rank + i;
    int64_t d = is >= 0 ? s.dim[is] : 1;
    stride[i] = d == 1 ? 0 : st;
    st *= d;
  }
}

// Walks every output row (all dimensions but the last) of `os` and calls
// row(offsets...) with each operand's element offset at that row's start.
template <int N, class F>
static void for_each_row(const Shape &os, const int64_t (*strides)[kMaxRank], F row) {
  int outer_rank = os.rank - 1;
  int64_t rows = 1;
  for (int i = 0; i < outer_rank; i++) rows *= os.dim[i];
  int64_t idx[kMaxRank] = {};
  int64_t off[N] = {};
  int64_t len = os.rank > 0 ? os.dim[os.rank - 1] : 1, since_poll = 0;
  for (int64_t r = 0; r < rows; r++) {
    if ((since_poll += len) > kPolledPiece) {  // as fill_in_polled_chunks does for flat loops
      check_interrupt();
      since_poll = 0;
    }
    row(off);
    // Odometer increment of the outer index, updating operand offsets.
    for (int d = outer_rank - 1; d >= 0; d--) {
      idx[d]++;
      for (int q = 0; q < N; q++) off[q] += strides[q][d];
      if (idx[d] < os.dim[d]) break;
      for (int q = 0; q < N; q++) off[q] -= strides[q][d] * os.dim[d];
      idx[d] = 0;
    }
  }
}

void k_binary(BinaryOp op, const double *a, const Shape &as, const double *b, const Shape &bs, double *out,
              const Shape &os) {
  const SimdOps &K = simd();
  int64_t n = os.size();
  int64_t na = as.size(), nb = bs.size();
  if ((na == n || na == 1) && (nb == n || nb == 1)) {
    int64_t sa = na == n ? 1 : 0, sb = nb == n ? 1 : 0;
    fill_in_polled_chunks(n, kPolledPiece, [&](int64_t lo, int64_t hi) {
      K.binary_inner(op, a + lo * sa, sa, b + lo * sb, sb, out + lo, hi - lo);
    });
    return;
  }
  // General broadcast: rows of the last output dimension.
  int64_t strides[2][kMaxRank] = {};
  broadcast_strides(as, os, strides[0]);
  broadcast_strides(bs, os, strides[1]);
  int last = os.rank - 1;
  int64_t len = os.dim[last];
  int64_t sa = strides[0][last], sb = strides[1][last];
  double *dst = out;
  for_each_row<2>(os, strides, [&](const int64_t *off) {
    K.binary_inner(op, a + off[0], sa, b + off[1], sb, dst, len);
    dst += len;
  });
}

void k_unary(UnaryOp op, const double *x, int64_t n, double *out) {
  const SimdOps &K = simd();
  fill_in_polled_chunks(n, kPolledPiece,
                        [&](int64_t lo, int64_t hi) { K.unary(op, x + lo, hi - lo, out + lo); });
}

void k_select(const double *cond, const Shape &cs, const double *a, const Shape &as, const double *b,
              const Shape &bs, double *out, const Shape &os) {
  const SimdOps &K = simd();
  int64_t n = os.size(), nc = cs.size(), na = as.size(), nb = bs.size();
  if ((nc == n || nc == 1) && (na == n || na == 1) && (nb == n || nb == 1)) {
    bool wc = nc == n, wa = na == n, wb = nb == n;
    fill_in_polled_chunks(n, kPolledPiece, [&](int64_t lo, int64_t hi) {
      K.select_inner(cond + (wc ? lo : 0), wc, a + (wa ? lo : 0), wa, b + (wb ? lo : 0), wb, out + lo,
                     hi - lo);
    });
    return;
  }
  int64_t strides[3][kMaxRank] = {};
  broadcast_strides(cs, os, strides[0]);
  broadcast_strides(as, os, strides[1]);
  broadcast_strides(bs, os, strides[2]);
  int last = os.rank - 1;
  int64_t len = os.dim[last];
  double *dst = out;
  for_each_row<3>(os, strides, [&](const int64_t *off) {
    K.select_inner(cond + off[0], strides[0][last], a + off[1], strides[1][last], b + off[2],
                   strides[2][last], dst, len);
    dst += len;
  });
}

double k_sum(const double *x, int64_t n) {
  double s = 0.0;  // one chain across the pieces: the order is unchanged
  fill_in_polled_chunks(n, kPolledPiece, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) s = s + x[i];
  });
  return s;
}

double k_mean(const double *x, int64_t n) { return k_sum(x, n) / double(n); }

int64_t k_argmax(const double *x, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 0; i < n; i++) {
    if (x[i] != x[i]) return i;
    if (x[i] > x[best]) best = i;
  }
  return best;
}

double k_max(const double *x, int64_t n) { return x[k_argmax(x, n)]; }

void axis_split(const Shape &s, int axis, int64_t &outer, int64_t &len, int64_t &inner) {
  outer = 1;
  inner = 1;
  for (int i = 0; i < axis; i++) outer *= s.dim[i];
  for (int i = axis + 1; i < s.rank; i++) inner *= s.dim[i];
  len = s.dim[axis];
}

void k_sum_axis(const double *x, const Shape &s, int axis, double *out) {
  int64_t outer, len, inner;
  axis_split(s, axis, outer, len, inner);
  simd().sum_axis(x, outer, len, inner, out);
}

void k_mean_axis(const double *x, const Shape &s, int axis, double *out) {
  k_sum_axis(x, s, axis, out);
  int64_t n = s.size() / s.dim[axis];
  double count = double(s.dim[axis]);
  for (int64_t i = 0; i < n; i++) out[i] = out[i] / count;
}

void k_max_axis(const double *x, const Shape &s, int axis, double *out) {
  int64_t outer, len, inner;
  axis_split(s, axis, outer, len, inner);
  simd().max_axis(x, outer, len, inner, out);
}

void k_argmax_axis(const double *x, const Shape &s, int axis, double *out) {
  int64_t outer, len, inner;
  axis_split(s, axis, outer, len, inner);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t t = 0; t < inner; t++) {
      const double *line = x + o * len * inner + t;
      int64_t best = 0;
      for (int64_t k = 0; k < len; k++) {
        double v = line[k * inner];
        if (v != v) {
          best = k;
          break;
        }
        if (v > line[best * inner]) best = k;
      }
      out[o * inner + t] = double(best);
    }
}

// The range test comes first, so the conversion to an integer never overflows.
static bool valid_index(double v, int64_t len) {
  return v >= 0.0 && v < double(len) && double(int64_t(v)) == v;
}

int64_t k_bad_index(const double *idx, int64_t n, int64_t len) {
  for (int64_t j = 0; j < n; j++)
    if (!valid_index(idx[j], len)) return j;
  return -1;
}

void k_take(const double *x, int64_t outer, int64_t len, int64_t inner, const double *idx, int64_t n,
            double *out) {
  for (int64_t j = 0; j < n; j++) {
    int64_t k = int64_t(idx[j]);
    for (int64_t o = 0; o < outer; o++)
      std::memcpy(out + (o * n + j) * inner, x + (o * len + k) * inner, size_t(inner) * sizeof(double));
  }
}

void k_scatter_add(const double *g, int64_t outer, int64_t len, int64_t inner, const double *idx, int64_t n,
                   double *out) {
  for (int64_t i = 0, e = outer * len * inner; i < e; i++) out[i] = 0.0;
  // j outermost and ascending: every output element sees its contributions in
  // the order of the indices, as the compiled loop (kernel_emitter.cpp) does.
  for (int64_t j = 0; j < n; j++) {
    int64_t k = int64_t(idx[j]);
    for (int64_t o = 0; o < outer; o++) {
      double *dst = out + (o * len + k) * inner;
      const double *src = g + (o * n + j) * inner;
      for (int64_t t = 0; t < inner; t++) dst[t] = dst[t] + src[t];
    }
  }
}

void k_sum_to(const double *g, const Shape &gs, double *out, const Shape &target) {
  int64_t nt = target.size();
  if (nt == 1) {  // everything onto one element: k_sum's chain, kept in a register
    out[0] = k_sum(g, gs.size());
    return;
  }
  for (int64_t i = 0; i < nt; i++) out[i] = 0.0;
  if (gs.rank == 0) {
    out[0] = out[0] + g[0];
    return;
  }
  // Walk g in row-major order and add each element to the target element it
  // came from: every output element sees its contributions in row-major order.
  int64_t tstride[kMaxRank];
  broadcast_strides(target, gs, tstride);
  int64_t idx[kMaxRank] = {};
  int64_t off = 0;
  int64_t n = gs.size();
  for (int64_t i = 0; i < n; i++) {
    out[off] = out[off] + g[i];
    for (int d = gs.rank - 1; d >= 0; d--) {
      idx[d]++;
      off += tstride[d];
      if (idx[d] < gs.dim[d]) break;
      off -= tstride[d] * gs.dim[d];
      idx[d] = 0;
    }
  }
}

void k_transpose(const double *x, const Shape &s, const int *perm, double *out) {
  int r = s.rank;
  if (r == 0) {
    out[0] = x[0];
    return;
  }
  if (r == 2 && perm[0] == 1) {
    simd().transpose2(x, s.dim[0], s.dim[1], out);
    return;
  }
  Shape os;
  os.rank = r;
  int64_t in_stride[kMaxRank];
  int64_t st = 1;
  for (int i = r - 1; i >= 0; i--) {
    in_stride[i] = st;
    st *= s.dim[i];
  }
  int64_t strides[1][kMaxRank] = {};
  for (int i = 0; i < r; i++) {
    os.dim[i] = s.dim[perm[i]];
    strides[0][i] = in_stride[perm[i]];
  }
  int64_t len = os.dim[r - 1], step = strides[0][r - 1];
  double *dst = out;
  for_each_row<1>(os, strides, [&](const int64_t *off) {
    const double *src = x + off[0];
    for (int64_t t = 0; t < len; t++) dst[t] = src[t * step];
    dst += len;
  });
}

void k_copy_along(const double *src, int64_t src_len, int64_t src_at, double *dst, int64_t dst_len,
                  int64_t dst_at, int64_t count, int64_t outer, int64_t inner) {
  size_t bytes = size_t(count * inner) * sizeof(double);
  for (int64_t o = 0; o < outer; o++)
    std::memcpy(dst + (o * dst_len + dst_at) * inner, src + (o * src_len + src_at) * inner, bytes);
}

// ---- matmul ---------------------------------------------------------------------

void k_matmul_reference(const double *a, const double *b, double *c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double acc = 0.0;
      for (int64_t kk = 0; kk < k; kk++) {
        double prod = a[i * k + kk] * b[kk * n + j];
        acc = acc + prod;
      }
      c[i * n + j] = acc;
    }
}

static std::atomic<int> g_threads{0};

int compute_threads() {
  int t = g_threads.load(std::memory_order_relaxed);
  if (t > 0) return t;
  t = 0;
  if (const char *s = std::getenv("KILN_THREADS")) t = std::atoi(s);
  if (t <= 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    t = cores > 0 ? int(cores) : 1;
  }
  if (t > 256) t = 256;
  g_threads.store(t);
  return t;
}

void set_compute_threads(int n) { g_threads.store(n < 1 ? 1 : n); }

namespace {
struct MatmulJob {
  const double *a, *b;
  double *c;
  int64_t m, k, n, rows_per_chunk;
  const SimdOps *K;
};
void matmul_chunk(void *ctx, int64_t chunk) {
  auto *j = static_cast<MatmulJob *>(ctx);
  int64_t m0 = chunk * j->rows_per_chunk;
  int64_t m1 = std::min(j->m, m0 + j->rows_per_chunk);
  j->K->matmul_rows(j->a, j->b, j->c, m0, m1, j->k, j->n);
}
}  // namespace

void k_matmul(const double *a, const double *b, double *c, int64_t m, int64_t k, int64_t n) {
  const SimdOps &K = simd();
  int threads = compute_threads();
  int64_t work = m * k * n;
  if (threads <= 1 || work < kParallelMatmulWork || m < 8) {
    K.matmul_rows(a, b, c, 0, m, k, n);
    check_interrupt();  // matmul_rows stops early on Ctrl-C, leaving c unfinished
    return;
  }
  // Chunks of whole 4-row blocks; a few per thread so uneven cores balance.
  int64_t chunks_wanted = int64_t(threads) * 4;
  int64_t rows = (m + chunks_wanted - 1) / chunks_wanted;
  rows = std::max<int64_t>(4, (rows + 3) / 4 * 4);
  MatmulJob job{a, b, c, m, k, n, rows, &K};
  parallel_for((m + rows - 1) / rows, threads, matmul_chunk, &job);
  check_interrupt();  // the pool stops handing out chunks on Ctrl-C, and matmul_rows stops early
}

}  // namespace kiln

namespace kiln {

namespace {
struct BatchedMatmulJob {
  const double *a, *b;
  double *c;
  const int64_t *a_off, *b_off;
  int64_t items_per_chunk, items, m, k, n;
  const SimdOps *K;
};
void batched_matmul_chunk(void *ctx, int64_t chunk) {
  auto *j = static_cast<BatchedMatmulJob *>(ctx);
  int64_t i1 = std::min(j->items, (chunk + 1) * j->items_per_chunk);
  for (int64_t i = chunk * j->items_per_chunk; i < i1; i++)
    j->K->matmul_rows(j->a + j->a_off[i], j->b + j->b_off[i], j->c + i * j->m * j->n, 0, j->m, j->k, j->n);
}
}  // namespace

void k_matmul_batched(const double *a, const Shape &a_batch, const double *b, const Shape &b_batch, double *c,
                      const Shape &batch, int64_t m, int64_t k, int64_t n) {
  int64_t items = batch.size();
  if (items == 1) return k_matmul(a, b, c, m, k, n);
  // Each batch item's first element in a and b (a broadcast axis has stride 0).
  int64_t as[kMaxRank], bs[kMaxRank];
  broadcast_strides(a_batch, batch, as);
  broadcast_strides(b_batch, batch, bs);
  std::vector<int64_t> a_off(static_cast<size_t>(items)), b_off(static_cast<size_t>(items));
  int64_t idx[kMaxRank] = {}, ao = 0, bo = 0;
  for (int64_t i = 0; i < items; i++) {
    a_off[size_t(i)] = ao * m * k;
    b_off[size_t(i)] = bo * k * n;
    for (int d = batch.rank - 1; d >= 0; d--) {
      idx[d]++;
      ao += as[d];
      bo += bs[d];
      if (idx[d] < batch.dim[d]) break;
      ao -= as[d] * batch.dim[d];
      bo -= bs[d] * batch.dim[d];
      idx[d] = 0;
    }
  }
  const SimdOps &K = simd();
  int threads = compute_threads();
  int64_t work = items * m * k * n;
  // Threads split whole matrices when there are enough of them, otherwise each
  // matrix's rows (k_matmul); either way only across output elements.
  if (threads > 1 && work >= kParallelMatmulWork && items >= int64_t(threads) * 2) {
    int64_t chunks_wanted = int64_t(threads) * 4;
    int64_t per = std::max<int64_t>(1, (items + chunks_wanted - 1) / chunks_wanted);
    BatchedMatmulJob job{a, b, c, a_off.data(), b_off.data(), per, items, m, k, n, &K};
    parallel_for((items + per - 1) / per, threads, batched_matmul_chunk, &job);
    return;
  }
  for (int64_t i = 0; i < items; i++)
    k_matmul(a + a_off[size_t(i)], b + b_off[size_t(i)], c + i * m * n, m, k, n);
}

}  // namespace kiln

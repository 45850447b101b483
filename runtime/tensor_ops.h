// tensor_ops.h — the numeric loops every tensor path shares: the eager tensor
// builtins (stdlib/tensors.cpp), the graph interpreter and, as the reference a
// JIT-compiled kernel is compared with bit for bit, the compiled kernels.
//
// Invariant: every op works on raw row-major double buffers plus a Shape,
// never on Lisp values, and computes each output element with ONE fixed
// sequence of IEEE operations, whatever the CPU path (AVX-512, AVX2, SSE2) or
// thread count. The fixed orders (docs/tensors.md):
//
//   matmul     out[i,j] = 0.0 + a[i,0]*b[0,j] + a[i,1]*b[1,j] + ...  (k ascending;
//              each product rounded, then added: no FMA)
//   full sum   0.0 + x[0] + x[1] + ...                     (row-major order)
//   axis sum   out[..] = 0.0 + x[..,0,..] + x[..,1,..] + ...  (ascending index)
//   mean       (that sum) / count, divided once
//   sum_to     out[p] = 0.0 + g[q0] + g[q1] + ...  over the elements q of g that
//              broadcast onto p, in row-major order of g
//   max        first maximal element in row-major / ascending order; a NaN
//              anywhere in the reduced range makes the result NaN
//
// Vectorisation and threading only ever run across output elements, never along
// a sum, so they cannot change a bit. The build compiles everything with
// -ffp-contract=off (CMakeLists.txt) so the compiler cannot fuse a*b+c either.
// Transcendental ops (exp, log, pow, ...) call the C library's scalar function
// once per element; tanh is Kiln's own straight-line formula (tanh_formula.h),
// vectorised like the arithmetic ops.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/op_table.h"

namespace kiln {

constexpr int kMaxRank = 8;

struct Shape {
  int rank = 0;
  int64_t dim[kMaxRank] = {};

  int64_t size() const {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dim[i];
    return n;
  }
  bool operator==(const Shape &o) const {
    if (rank != o.rank) return false;
    for (int i = 0; i < rank; i++)
      if (dim[i] != o.dim[i]) return false;
    return true;
  }
  static Shape of(std::initializer_list<int64_t> dims) {
    Shape s;
    for (int64_t d : dims) s.dim[s.rank++] = d;
    return s;
  }
};

// "2x3", "7", or "scalar" for rank 0 (the form the printer and tensor messages use, docs/tensors.md).
std::string shape_string(const Shape &s);

// NumPy broadcasting: aligns trailing dimensions; a 1 stretches. Returns false
// when the shapes do not broadcast.
bool broadcast_shapes(const Shape &a, const Shape &b, Shape &out);

// BinaryOp and UnaryOp: one enumerator per row of op_table.h.

double apply_binary(BinaryOp op, double a, double b);
double apply_unary(UnaryOp op, double x);

// out (shape `os`, which must be broadcast_shapes(as, bs)) = a OP b.
void k_binary(BinaryOp op, const double *a, const Shape &as, const double *b, const Shape &bs, double *out,
              const Shape &os);
void k_unary(UnaryOp op, const double *x, int64_t n, double *out);
// out[i] = cond[i] != 0 ? a[i] : b[i], all three broadcast to `os`.
void k_select(const double *cond, const Shape &cs, const double *a, const Shape &as, const double *b,
              const Shape &bs, double *out, const Shape &os);

// Whole-tensor reductions (n >= 1).
double k_sum(const double *x, int64_t n);
double k_mean(const double *x, int64_t n);
double k_max(const double *x, int64_t n);
int64_t k_argmax(const double *x, int64_t n);  // first maximal (or first NaN) index

// Per-axis reductions: `out` has the shape of `s` with `axis` removed (or set
// to 1: the layout is the same). 0 <= axis < s.rank.
void k_sum_axis(const double *x, const Shape &s, int axis, double *out);
void k_mean_axis(const double *x, const Shape &s, int axis, double *out);
void k_max_axis(const double *x, const Shape &s, int axis, double *out);

// Per line along `axis` (0 <= axis < s.rank): the index of the first maximal
// element, or of the first NaN, as a double; `out` has s's shape without `axis`.
void k_argmax_axis(const double *x, const Shape &s, int axis, double *out);

// Gathering along one axis (tensor-take) and its gradient. With x viewed as
// [outer][len][inner] around the axis and idx holding n entries, each an integer
// in [0, len) (k_bad_index checks that first):
//   k_take         out[o][j][t] = x[o][idx[j]][t]                 (out: [outer][n][inner])
//   k_scatter_add  out[o][k][t] = 0.0 + g[o][j1][t] + g[o][j2][t] + ...  over the j
//                  with idx[j] == k, ascending             (g: [outer][n][inner])
void k_take(const double *x, int64_t outer, int64_t len, int64_t inner, const double *idx, int64_t n,
            double *out);
void k_scatter_add(const double *g, int64_t outer, int64_t len, int64_t inner, const double *idx, int64_t n,
                   double *out);
// The position of the first entry of idx[0..n) that is not an integer in
// [0, len) (NaN included), or -1 when all are.
int64_t k_bad_index(const double *idx, int64_t n, int64_t len);

// Sums g (shape gs) down to `target`, which must broadcast to gs: the gradient
// of a broadcast. Order: see the header comment.
void k_sum_to(const double *g, const Shape &gs, double *out, const Shape &target);

// Below this many multiply-adds (or 8 rows) a matmul runs on the calling thread,
// in k_matmul and in compiled kernels alike: below it, waking the pool costs
// more than the second thread saves (docs/performance.md, "Tensor loops").
constexpr int64_t kParallelMatmulWork = int64_t(1) << 21;

// A compiled kernel's matmul chunk does at most about this many multiply-adds
// (a few tens of milliseconds), so that Ctrl-C, answered between chunks, is
// answered quickly; k_matmul polls inside its rows instead (matmul_rows).
constexpr int64_t kPolledMatmulWork = int64_t(1) << 26;
// c[m x n] = a[m x k] * b[k x n], all row-major and contiguous. Rows are split
// across compute_threads() threads above kParallelMatmulWork; the result does not
// depend on the thread count or CPU path.
void k_matmul(const double *a, const double *b, double *c, int64_t m, int64_t k, int64_t n);
// c[batch.., m x n] = a[a_batch.., m x k] * b[b_batch.., k x n]: one k_matmul per
// item of `batch`, the broadcast of a_batch and b_batch (NumPy rules, a length-1
// axis repeats). Threads split whole items when there are many, else rows.
void k_matmul_batched(const double *a, const Shape &a_batch, const double *b, const Shape &b_batch, double *c,
                      const Shape &batch, int64_t m, int64_t k, int64_t n);
// Single-threaded reference with the same summation order, written as the plain
// triple loop: the oracle tests and JIT kernels compare against, bit for bit.
void k_matmul_reference(const double *a, const double *b, double *c, int64_t m, int64_t k, int64_t n);

// out = x with its axes permuted: out.dim[i] = s.dim[perm[i]].
void k_transpose(const double *x, const Shape &s, const int *perm, double *out);

// Data movement along one axis, for slicing, padding and concatenation: with
// each tensor viewed as [outer][len][inner] around the axis, entries
// [src_at, src_at + count) of every line of src (len src_len) are copied to
// entries [dst_at, dst_at + count) of the same line of dst (len dst_len).
void k_copy_along(const double *src, int64_t src_len, int64_t src_at, double *dst, int64_t dst_len,
                  int64_t dst_at, int64_t count, int64_t outer, int64_t inner);
// Shape s viewed as [outer][len][inner] around `axis`: outer and inner are the
// products of the dimensions before and after it, len the axis itself.
void axis_split(const Shape &s, int axis, int64_t &outer, int64_t &len, int64_t &inner);

// Threads for k_matmul. Default: KILN_THREADS, else all online cores.
int compute_threads();
void set_compute_threads(int n);  // n >= 1; for tests and benchmarks
// Which vector path the dispatcher chose ("avx512f", "avx2", "default").
const char *simd_path();
// Forces a vector path for tests: "avx512f", "avx2" or "default"; nullptr =
// automatic. A path the CPU lacks is ignored (returns false).
bool force_simd_path(const char *path);

}  // namespace kiln

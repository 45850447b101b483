/* step.c — the hand-written C yardstick for benchmarks/tensor_bench.lisp.
 *
 * The same training as tensor_bench.lisp's compiled path (one graph-compile-grad
 * kernel per step), written by hand: one layer,
 *     loss = sum((relu(x W + b) - t)^2) / nn
 * b a scalar, nn = m*n passed like an argument, gradients of all five arguments
 * (x, W, b, t, nn) every step, plain SGD with lr 0.01 on W and b; 8x16->8 for 1000
 * steps and 64x256->64 for 100 steps; three warm-up runs, then the median of 3 timed runs.
 *
 * Every floating-point operation is the one Kiln's optimised forward+backward graph
 * performs, in the same order, so the final loss is bit-identical to Kiln's:
 *   Y  = X W       Y[i,j]  = 0.0 + X[i,0]*W[0,j] + X[i,1]*W[1,j] + ...   (k ascending)
 *   Z  = Y + b     R = Z > 0 ? Z : 0.0     D = R - T
 *   S  = 0.0 + D[0]*D[0] + D[1]*D[1] + ...        (one serial chain, row-major)
 *   loss = S / nn      r = 1.0 / nn      g = r * 1.0
 *   dD = g*D + g*D (one product, added to itself)     gt = -dD
 *   dZ = Z > 0 ? dD : 0.0     gb = 0.0 + dZ[0] + dZ[1] + ...   (serial, row-major)
 *   gW = X^T dZ    gW[p,j] = 0.0 + X[0,p]*dZ[0,j] + X[1,p]*dZ[1,j] + ...   (i ascending)
 *   gx = dZ W^T    gx[i,p] = 0.0 + dZ[i,0]*W[p,0] + dZ[i,1]*W[p,1] + ...   (j ascending)
 *   gnn = (-1.0 * S) / (nn * nn)
 *   W = W - 0.01*gW,  b = b - 0.01*gb  (multiply, then subtract)
 * Compile with -ffp-contract=off (no multiply-add is fused) and no -ffast-math.
 *
 * What makes it fast without changing any of that: register-blocked matmuls (tiles
 * of 4 rows x NV vectors of accumulators kept in registers over the whole k loop,
 * GCC vector extensions as wide as the -march level allows), W^T packed into
 * column panels for dZ W^T (VW x VW blocks transposed in registers), X^T read in
 * place for X^T dZ, the element-wise forward and backward ops fused into the first
 * matmul's tile stores, the SGD update of W fused into the X^T dZ tile stores, and
 * the two serial sums (latency-bound chains) interleaved with the W^T packing.
 * One thread; the gx, gt and gnn gradients nothing uses are stored all the same.
 *
 * Output, one line per size (parsed by benchmarks/run_tensor_bench.sh):
 *   8x16->8 x1000: c 0.123 ms, final loss 0.3531348049950783, vector 8, checks sum(gx) ... sum(gt) ... gnn
 * ... gb ... The checks are the last step's gradients (tensor-sum order) for comparing with Kiln.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __FAST_MATH__
#error "step.c must not be compiled with -ffast-math: it must keep Kiln's IEEE operations"
#endif

#if defined(__AVX512F__)
#define VW 8 /* doubles per vector: x86-64-v4 */
#define NV 4 /* vectors per tile row */
#elif defined(__AVX2__)
#define VW 4 /* x86-64-v3 */
#define NV 3
#else
#define VW 2 /* x86-64-v2 and below */
#define NV 3
#endif
#define MR 4 /* rows per tile */

typedef double vd __attribute__((vector_size(VW * sizeof(double))));
typedef long vm __attribute__((vector_size(VW * sizeof(double))));

#define AI static inline __attribute__((always_inline))

AI vd ld(const double *p) {
  vd v;
  memcpy(&v, p, sizeof v);
  return v;
}
AI void st(double *p, vd v) { memcpy(p, &v, sizeof v); }
AI vd bc(double x) {
#if VW == 8
  return (vd){x, x, x, x, x, x, x, x};
#elif VW == 4
  return (vd){x, x, x, x};
#else
  return (vd){x, x};
#endif
}

/* acc[r][v] = 0.0 + A(r,0)*B[0][v] + A(r,1)*B[1][v] + ... (kk ascending), where
 * A(r,kk) = a[r*ars + kk*acs] and B[kk][v] is the vector at b + kk*ldb + v*VW.
 * One function per tile shape (kept out of line so the accumulators get the
 * registers to themselves). */
AI void mm_tile_body(const int mr, const int nv, const int K, const double *a, const long ars, const long acs,
                     const double *b, const long ldb, vd out[MR][NV]) {
  vd acc[MR][NV];
  for (int r = 0; r < mr; r++)
    for (int v = 0; v < nv; v++) acc[r][v] = (vd){0};
  for (int kk = 0; kk < K; kk++) {
    vd bv[NV];
    for (int v = 0; v < nv; v++) bv[v] = ld(b + kk * ldb + v * VW);
    for (int r = 0; r < mr; r++) {
      vd av = bc(a[r * ars + kk * acs]);
      for (int v = 0; v < nv; v++) acc[r][v] = acc[r][v] + av * bv[v];
    }
  }
  for (int r = 0; r < mr; r++)
    for (int v = 0; v < nv; v++) out[r][v] = acc[r][v];
}
#define MM_TILE_FN(nv)                                                                            \
  static __attribute__((noinline)) void mm_tile_##nv(int K, const double *a, long ars, long acs,  \
                                                     const double *b, long ldb, vd out[MR][NV]) { \
    mm_tile_body(MR, nv, K, a, ars, acs, b, ldb, out);                                            \
  }
MM_TILE_FN(1)
MM_TILE_FN(2)
MM_TILE_FN(3)
#if NV == 4
MM_TILE_FN(4)
#endif
AI void mm_tile(const int nv, int K, const double *a, long ars, long acs, const double *b, long ldb,
                vd out[MR][NV]) {
  switch (nv) {
  case 1: mm_tile_1(K, a, ars, acs, b, ldb, out); break;
  case 2: mm_tile_2(K, a, ars, acs, b, ldb, out); break;
  case 3: mm_tile_3(K, a, ars, acs, b, ldb, out); break;
#if NV == 4
  case 4: mm_tile_4(K, a, ars, acs, b, ldb, out); break;
#endif
  }
}

typedef struct {
  double *x, *t, *w0, b0, nn; /* inputs */
  double *w, *wtp;            /* weights being trained; W^T packed in panels */
  double *sq, *dz;            /* D*D and dZ, for the serial sums and the matmuls */
  double *gx, *gw, *gt;       /* gradients */
  double gb, gnn, loss;       /* the last step's scalars */
} Problem;

static volatile double sink; /* every step's scalar gradients go here */

/* Forward tile (rows i0.., vectors v0..) plus every element-wise op of the step. */
AI void fwd_tile(Problem *P, const int K, const int N, int i0, int v0, const int nv, vd bv, vd gv) {
  vd acc[MR][NV];
  mm_tile(nv, K, P->x + (long)i0 * K, K, 1, P->w + v0 * VW, N, acc);
  const vd zero = {0};
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < nv; v++) {
      long o = (long)(i0 + r) * N + (v0 + v) * VW;
      vd z = acc[r][v] + bv;
      vm pos = z > zero;
      vd d = (vd)((vm)z & pos) - ld(P->t + o); /* relu(z) - t */
      st(P->sq + o, d * d);
      vd dsq = gv * d;
      vd dd = dsq + dsq;
      st(P->gt + o, -dd);
      st(P->dz + o, (vd)((vm)dd & pos)); /* select(z > 0, dD, 0.0) */
    }
}

/* gx tile: rows i0.. of dZ W^T, vectors v0.. of panel p0 (width pw). */
AI void gx_tile(Problem *P, const int K, const int N, int i0, int p0, int pw, int v0, const int nv) {
  vd acc[MR][NV];
  mm_tile(nv, N, P->dz + (long)i0 * N, N, 1, P->wtp + (long)p0 * N + v0 * VW, pw, acc);
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < nv; v++) st(P->gx + (long)(i0 + r) * K + p0 + (v0 + v) * VW, acc[r][v]);
}

/* gW tile: rows p0.. of X^T dZ (X read in place), vectors v0..; then SGD on W. */
AI void gw_tile(Problem *P, const int M, const int K, const int N, int p0, int v0, const int nv) {
  vd acc[MR][NV];
  mm_tile(nv, M, P->x + p0, 1, K, P->dz + v0 * VW, N, acc);
  const vd lr = bc(0.01);
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < nv; v++) {
      long o = (long)(p0 + r) * N + (v0 + v) * VW;
      st(P->gw + o, acc[r][v]);
      st(P->w + o, ld(P->w + o) - lr * acc[r][v]);
    }
}

/* Transposes a VW x VW block in registers: log2(VW) butterfly stages, stage s
 * swapping bit s of the row index with bit s of the lane index. */
AI void transpose(vd r[VW]) {
#if VW == 8
  static const vm lo[3] = {
      {0, 8, 2, 10, 4, 12, 6, 14}, {0, 1, 8, 9, 4, 5, 12, 13}, {0, 1, 2, 3, 8, 9, 10, 11}};
  static const vm hi[3] = {
      {1, 9, 3, 11, 5, 13, 7, 15}, {2, 3, 10, 11, 6, 7, 14, 15}, {4, 5, 6, 7, 12, 13, 14, 15}};
#elif VW == 4
  static const vm lo[2] = {{0, 4, 2, 6}, {0, 1, 4, 5}};
  static const vm hi[2] = {{1, 5, 3, 7}, {2, 3, 6, 7}};
#else
  static const vm lo[1] = {{0, 2}};
  static const vm hi[1] = {{1, 3}};
#endif
  for (int stage = 0, s = 1; s < VW; stage++, s <<= 1)
    for (int i = 0; i < VW; i++)
      if (!(i & s)) {
        vd a = r[i], b = r[i + s];
        r[i] = __builtin_shuffle(a, b, lo[stage]);
        r[i + s] = __builtin_shuffle(a, b, hi[stage]);
      }
}

/* Calls TILE(v0, nv) over one row of tiles: NV vectors at a time, then the rest. */
#define OVER_VECTORS(nvec, TILE)                         \
  do {                                                   \
    int v0_ = 0;                                         \
    for (; v0_ + NV <= (nvec); v0_ += NV) TILE(v0_, NV); \
    switch ((nvec)-v0_) {                                \
    case 1: TILE(v0_, 1); break;                         \
    case 2: TILE(v0_, 2); break;                         \
    case 3: TILE(v0_, 3); break;                         \
    default: break;                                      \
    }                                                    \
  } while (0)

AI double train(Problem *P, const int M, const int K, const int N, const int steps) {
  const double nn = P->nn;
  const int PW = NV * VW; /* panel width of the packed W^T */
  memcpy(P->w, P->w0, sizeof(double) * K * N);
  double b = P->b0, last = 0.0;
  for (int s = 0; s < steps; s++) {
    const double r = 1.0 / nn;
    const double g = r * 1.0;
    const vd bv = bc(b), gv = bc(g);
    /* forward + element-wise backward: sq = D*D, gt, dZ */
    for (int i0 = 0; i0 < M; i0 += MR) {
#define FWD(v0, nv) fwd_tile(P, K, N, i0, v0, nv, bv, gv)
      OVER_VECTORS(N / VW, FWD);
#undef FWD
    }
    /* Pack W^T (N x K) into panels of PW columns (panel p0 holds
       wtp[p0*N + j*pw + q] = W[p0+q, j]) in VW x VW blocks, and meanwhile run the
       two serial sums (latency-bound chains, S over sq and gb over dZ, row-major)
       a few elements per block, so they overlap the shuffles. */
    double S = 0.0, gb = 0.0;
    const long count = (long)M * N,
               per = (count + (long)(K / VW) * (N / VW) - 1) / ((long)(K / VW) * (N / VW));
    long e = 0;
    for (int p0 = 0; p0 < K; p0 += PW) {
      int pw = K - p0 < PW ? K - p0 : PW;
      double *dst = P->wtp + (long)p0 * N;
      for (int q0 = 0; q0 < pw; q0 += VW)
        for (int j0 = 0; j0 < N; j0 += VW) {
          vd blk[VW];
          for (int q = 0; q < VW; q++) blk[q] = ld(P->w + (long)(p0 + q0 + q) * N + j0);
          transpose(blk);
          for (int j = 0; j < VW; j++) st(dst + (j0 + j) * pw + q0, blk[j]);
          for (long end = e + per < count ? e + per : count; e < end; e++) {
            S = S + P->sq[e];
            gb = gb + P->dz[e];
          }
        }
    }
    const double loss = S / nn;
    const double gnn = (-1.0 * S) / (nn * nn);
    /* gx = dZ W^T */
    for (int p0 = 0; p0 < K; p0 += PW) {
      int pw = K - p0 < PW ? K - p0 : PW;
      for (int i0 = 0; i0 < M; i0 += MR) {
#define GX(v0, nv) gx_tile(P, K, N, i0, p0, pw, v0, nv)
        OVER_VECTORS(pw / VW, GX);
#undef GX
      }
    }
    /* gW = X^T dZ, and W = W - 0.01 gW */
    for (int p0 = 0; p0 < K; p0 += MR) {
#define GW(v0, nv) gw_tile(P, M, K, N, p0, v0, nv)
      OVER_VECTORS(N / VW, GW);
#undef GW
    }
    b = b - 0.01 * gb;
    sink = gnn;
    sink = gb;
    P->gb = gb;
    P->gnn = gnn;
    last = loss;
  }
  P->loss = last;
  return last;
}

/* One function per size, so every bound is a constant. */
#define SIZES(X) X(8, 16, 8, 1000) X(64, 256, 64, 100)
#define TRAIN_FN(m, k, n, steps)                                                       \
  static __attribute__((noinline)) double train_##m##_##k##_##n(Problem *P) {          \
    _Static_assert(m % MR == 0 && k % MR == 0 && n % VW == 0 && k % VW == 0, "shape"); \
    return train(P, m, k, n, steps);                                                   \
  }
SIZES(TRAIN_FN)

static double *alloc(long rows, long cols) {
  size_t bytes = ((size_t)(rows * cols) * sizeof(double) + 63) / 64 * 64;
  double *p = aligned_alloc(64, bytes);
  if (!p) {
    perror("step");
    exit(2);
  }
  memset(p, 0, bytes);
  return p;
}

static double val(long i, long off) { return (double)((7 * i + off) % 17 - 8) / 8.0; }

static double *matrix(int rows, int cols, int off) {
  double *p = alloc(rows, cols);
  for (long i = 0; i < rows; i++)
    for (long j = 0; j < cols; j++) p[i * cols + j] = val(i * cols + j, off);
  return p;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The shortest decimal form that reads back as the same double (like Kiln prints). */
static const char *shortest(double x, char *buf, size_t size) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, x);
    if (strtod(buf, NULL) == x) break;
  }
  return buf;
}

static double serial_sum(const double *p, long count) {
  double s = 0.0;
  for (long i = 0; i < count; i++) s = s + p[i];
  return s;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void bench(int m, int k, int n, int steps, double (*run)(Problem *)) {
  Problem P = {0};
  P.x = matrix(m, k, 0);
  P.t = matrix(m, n, 5);
  P.w0 = matrix(k, n, 3);
  P.b0 = val(1, 0);
  P.nn = (double)(m * n);
  P.w = alloc(k, n);
  P.wtp = alloc(n, k);
  P.sq = alloc(m, n);
  P.dz = alloc(m, n);
  P.gx = alloc(m, k);
  P.gw = alloc(k, n);
  P.gt = alloc(m, n);

  for (int w = 0; w < 3; w++) run(&P); /* warm-up, as tensor_bench.lisp does */
  double ms[3], loss = 0.0;
  for (int r = 0; r < 3; r++) {
    double t0 = now_ms();
    loss = run(&P);
    ms[r] = now_ms() - t0;
  }
  qsort(ms, 3, sizeof ms[0], cmp_double);
  char a[32], b[32], c[32], d[32], e[32];
  printf(
      "%dx%d->%d x%d: c %.3f ms, final loss %s, vector %d, checks sum(gx) %s sum(gt) %s gnn %s "
      "gb %s\n",
      m, k, n, steps, ms[1], shortest(loss, a, sizeof a), VW,
      shortest(serial_sum(P.gx, (long)m * k), b, sizeof b),
      shortest(serial_sum(P.gt, (long)m * n), c, sizeof c), shortest(P.gnn, d, sizeof d),
      shortest(P.gb, e, sizeof e));
  fflush(stdout);
  free(P.x), free(P.t), free(P.w0), free(P.w), free(P.wtp), free(P.sq), free(P.dz);
  free(P.gx), free(P.gw), free(P.gt);
}

int main(void) {
#define BENCH(m, k, n, steps) bench(m, k, n, steps, train_##m##_##k##_##n);
  SIZES(BENCH)
  return 0;
}

/* baseline.c — plain C loops for benchmarks/tensor_ops, in the same
 * summation orders as Kiln's kernels (k ascending from 0.0; sums in row-major
 * order from 0.0). Prints "NAME MICROSECONDS-PER-CALL", best of 3 batches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double *rnd(int64_t n, uint64_t seed) {
  double *p = aligned_alloc(64, (size_t)((n * 8 + 63) / 64 * 64));
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = (double)(seed >> 11) * 0x1.0p-53;
  }
  return p;
}

/* i-k-j: each c[i][j] still adds a[i][k]*b[k][j] for k = 0, 1, ... from 0.0. */
static void matmul(const double *restrict a, const double *restrict b, double *restrict c, int m, int k,
                   int n) {
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) c[i * n + j] = 0.0;
    for (int kk = 0; kk < k; kk++) {
      double av = a[i * k + kk];
      for (int j = 0; j < n; j++) c[i * n + j] = c[i * n + j] + av * b[kk * n + j];
    }
  }
}

static volatile double sink;

#define BENCH(name, reps, body)             \
  do {                                      \
    double best = 1e300;                    \
    for (int r = 0; r < 3; r++) {           \
      double t0 = now_us();                 \
      for (int it = 0; it < (reps); it++) { \
        body;                               \
      }                                     \
      double t = (now_us() - t0) / (reps);  \
      if (t < best) best = t;               \
    }                                       \
    printf("%s %.4f\n", name, best);        \
  } while (0)

int main(void) {
  double *a8 = rnd(8 * 16, 1), *b8 = rnd(16 * 8, 2), *c8 = rnd(64, 0);
  double *a64 = rnd(64 * 256, 3), *b64 = rnd(256 * 64, 4), *c64 = rnd(64 * 64, 0);
  double *a512 = rnd(512 * 512, 5), *b512 = rnd(512 * 512, 6), *c512 = rnd(512 * 512, 0);
  double *x = rnd(256 * 64, 7), *row = rnd(64, 8), *out = rnd(256 * 64, 0);
  double *s2 = rnd(4, 9), *o2 = rnd(4, 0);
  BENCH("matmul_8x16x8", 100000, {
    matmul(a8, b8, c8, 8, 16, 8);
    sink = c8[3];
  });
  BENCH("matmul_64x256x64", 2000, {
    matmul(a64, b64, c64, 64, 256, 64);
    sink = c64[3];
  });
  BENCH("matmul_512x512x512", 10, {
    matmul(a512, b512, c512, 512, 512, 512);
    sink = c512[3];
  });
  BENCH("add_256x64_bcast_64", 20000, {
    for (int i = 0; i < 256; i++)
      for (int j = 0; j < 64; j++) out[i * 64 + j] = x[i * 64 + j] + row[j];
    sink = out[5];
  });
  BENCH("sum_256x64", 20000, {
    double s = 0.0;
    for (int i = 0; i < 256 * 64; i++) s = s + x[i];
    sink = s;
  });
  BENCH("add_2x2", 1000000, {
    for (int i = 0; i < 4; i++) o2[i] = s2[i] + s2[i];
    sink = o2[1];
  });
  return 0;
}

/* kernel_ab.c — times compiled tensor_bench training kernels (64x256->64) on
 * their own, alternately, so two code generators can be compared in one run.
 *
 *   kernel_ab A.so [B.so ...]
 *   kernel_ab --is-training-kernel X.so    (exit status 0 if it is one)
 *
 * Each .so is an entry of Kiln's kernel cache (see run.sh). Its exported key
 * must describe the 64x256->64 training kernel (x 64x256, W 256x64, b, t 64x64,
 * nn). Inputs are tensor_bench.lisp's X, W0, b0, T and nn; the outputs go to
 * the same buffers on every call (hot in cache), so this measures the kernel's
 * code, not Kiln's allocation of fresh result tensors. Five rounds of 100 calls
 * per kernel, kernels alternating within each round; prints each round and the
 * median. The first kernel's loss is checked against every other's, bit for bit.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*par_fn)(long, void (*)(void *, long), void *);
typedef void (*kernel_fn)(double **, double **, double *, par_fn);

enum { M = 64, K = 256, N = 64, ROUNDS = 5, CALLS = 100, MAX_KERNELS = 8 };

static void serial_par(long chunks, void (*chunk)(void *, long), void *ctx) {
  for (long i = 0; i < chunks; i++) chunk(ctx, i);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double val(long i, long off) { return (double)((7 * i + off) % 17 - 8) / 8.0; }

static double *matrix(long rows, long cols, long off) {
  double *p = aligned_alloc(64, (size_t)(rows * cols) * sizeof(double));
  if (!p) exit(2);
  for (long i = 0; i < rows * cols; i++) p[i] = val(i, off);
  return p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int check_only = argc == 3 && strcmp(argv[1], "--is-training-kernel") == 0;
  if (check_only) {
    argv++;
    argc--;
  }
  if (argc < 2 || argc - 1 > MAX_KERNELS) {
    fprintf(stderr, "usage: kernel_ab A.so [B.so ...] (at most %d)\n", MAX_KERNELS);
    return 2;
  }
  int nk = argc - 1;
  kernel_fn fn[MAX_KERNELS];
  for (int i = 0; i < nk; i++) {
    void *h = dlopen(argv[i + 1], RTLD_NOW);
    if (!h) {
      fprintf(stderr, "kernel_ab: %s\n", dlerror());
      return 1;
    }
    const char *(*key)(void) = (const char *(*)(void))dlsym(h, "kiln_kernel_key");
    fn[i] = (kernel_fn)dlsym(h, "kiln_kernel");
    if (!key || !fn[i] || !strstr(key(), "0 param 64x256 ten p0") ||
        !strstr(key(), "1 param 256x64 ten p1") || !strstr(key(), "3 param 64x64 ten p3")) {
      fprintf(stderr, "kernel_ab: %s is not the 64x256->64 training kernel\n", argv[i + 1]);
      return 1;
    }
  }
  if (check_only) return 0;
  double *x = matrix(M, K, 0), *w = matrix(K, N, 3), *t = matrix(M, N, 5);
  double b = val(1, 0), nn = (double)(M * N);
  double *args[5] = {x, w, &b, t, &nn};
  double loss, gb, gnn;
  double *gx = matrix(M, K, 0), *gw = matrix(K, N, 0), *gt = matrix(M, N, 0);
  double *results[6] = {&loss, gx, gw, &gb, gt, &gnn};
  double *scratch = aligned_alloc(64, (size_t)8 << 20); /* above any layout this kernel needs */
  if (!scratch) return 2;
  double first_loss = 0;
  double ms[MAX_KERNELS][ROUNDS];
  for (int r = 0; r < ROUNDS + 1; r++) /* round 0 warms up */
    for (int i = 0; i < nk; i++) {
      double t0 = now_ms();
      for (int c = 0; c < CALLS; c++) fn[i](args, results, scratch, serial_par);
      double dt = now_ms() - t0;
      if (r == 0 && i == 0) first_loss = loss;
      if (memcmp(&loss, &first_loss, sizeof loss) != 0) {
        fprintf(stderr, "kernel_ab: %s computes a different loss (%.17g, not %.17g)\n", argv[i + 1], loss,
                first_loss);
        return 1;
      }
      if (r > 0) ms[i][r - 1] = dt;
    }
  for (int i = 0; i < nk; i++) {
    printf("%s: %d calls:", argv[i + 1], CALLS);
    for (int r = 0; r < ROUNDS; r++) printf(" %.3f", ms[i][r]);
    qsort(ms[i], ROUNDS, sizeof(double), cmp_double);
    printf(" ms; median %.3f ms\n", ms[i][ROUNDS / 2]);
  }
  return 0;
}

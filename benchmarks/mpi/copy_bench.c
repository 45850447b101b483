/* copy_bench.c — the baselines for allreduce_bench.lisp: a 10 MB memcpy in one
 * process, and 10 MB sent from rank 0 to rank 1 (MPI_Send/MPI_Recv, the copy
 * between two processes an allreduce is compared with), milliseconds per copy;
 * and mpi-allreduce's two-process algorithm written in C (Kiln's own costs aside).
 *
 *     mpicc -O2 -o /tmp/copy_bench benchmarks/mpi/copy_bench.c
 *     mpirun -np 2 /tmp/copy_bench
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1310720
#define REPS 40

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++) a[i] = i * 0.5, b[i] = 0.0;
  memcpy(b, a, N * sizeof(double));
  double t0 = MPI_Wtime();
  for (int r = 0; r < REPS; r++) {
    a[r] += 1.0; /* keep the copies from being merged */
    memcpy(b, a, N * sizeof(double));
  }
  double t_memcpy = (MPI_Wtime() - t0) / REPS;
  for (int warm = 0; warm < 2; warm++) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int r = 0; r < REPS; r++) {
      if (rank == 0) MPI_Send(a, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      else if (rank == 1) MPI_Recv(b, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double t_send = (MPI_Wtime() - t0) / REPS;
  /* What mpi-allreduce does for two processes, in plain C: both send their whole
   * buffer at once, then each adds the two in rank order. */
  double *c = malloc(N * sizeof(double));
  int peer = 1 - rank;
  for (int warm = 0; warm < 2; warm++) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int r = 0; r < REPS; r++) {
      MPI_Request q[2];
      MPI_Irecv(b, N, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &q[0]);
      MPI_Isend(a, N, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &q[1]);
      MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
      const double *x0 = rank == 0 ? a : b, *x1 = rank == 0 ? b : a;
      for (int i = 0; i < N; i++) c[i] = x0[i] + x1[i];
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double t_exchange = (MPI_Wtime() - t0) / REPS;
  if (rank == 0)
    printf(
        "memcpy-10MB-ms %.3f send-10MB-between-processes-ms %.3f exchange-and-add-10MB-ms %.3f "
        "(%d doubles, mean of %d)\n",
        t_memcpy * 1e3, t_send * 1e3, t_exchange * 1e3, N, REPS);
  free(c);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}

// mpi.h — several processes under an MPI launcher (SPEC §18, docs/distributed.md).
//
// Invariants:
//   * MPI is initialised only when the process was started by a launcher (mpirun
//     sets OMPI_COMM_WORLD_SIZE / PMIX_RANK) and only on the first mpi-*
//     procedure or exchange: a plain `kiln` never touches MPI and starts as fast
//     as before; it is one process of rank 0.
//   * Every reduction combines the processes' values element by element in rank
//     order, ((t0 + t1) + t2) + ..., on the process that owns that block of
//     elements; the other processes receive the owner's bits. So every process
//     and every rerun with the same process count gets the same bits.
//   * Before any data moves, every process compares the signature (structure,
//     shapes, reduction) of what it exchanges with every other's; on a mismatch
//     all of them raise the same error and nothing is exchanged.
//   * No exchange waits forever for a process that ended or for Ctrl-C
//     (mpi_transport.h): the wait fails with an error naming the rank.
#pragma once
#include <string>

namespace kiln {

// What `kiln --version` adds: "with MPI (Open MPI v4.1.4)" or "without MPI".
std::string mpi_build_description();

// Called once the program has ended with `status`. On a failure while several
// processes run, names this process's rank on stderr and aborts the whole job
// (MPI_Abort), so the others stop within seconds instead of waiting on this one.
// On success under a launcher, tells the others it has ended (starting MPI if
// it never did, as they may wait for it), waits until they have all ended, and
// finalises MPI.
void mpi_finish(int status);

}  // namespace kiln

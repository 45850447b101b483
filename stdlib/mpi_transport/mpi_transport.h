// mpi_transport.h — what the MPI plugin (libkiln_mpi.so) gives stdlib/mpi.cpp.
//
// Invariants:
//   * kiln itself links no MPI: loading libmpi and its libraries costs a plain
//     start about 3 ms of CPU, so stdlib/mpi.cpp loads this plugin (which links
//     libmpi) only in a process a launcher started, on the first mpi-* call.
//   * Both sides are built by the same compiler in the same build, so the table
//     may pass C++ types; its one C entry point is found with dlsym.
//   * Every call is collective except rank/size queries, abort and version: every
//     process makes the same calls in the same order.
//   * No exchange waits forever on a process that will never join it: every wait
//     polls the end-of-program notices the others send when they finish (finish),
//     and Ctrl-C. A process that finished after completing fewer exchanges than
//     the one this process waits in will never join it, so the wait fails with
//     a message naming that rank. After a wait failed half-way (or was
//     interrupted), this process makes no further MPI call but the final
//     handshake and MPI_Finalize or MPI_Abort: MPI may still hold the buffers of
//     the abandoned exchange, and the program may reuse that memory.
#pragma once
#include <csignal>
#include <cstdint>
#include <string>

namespace kiln {

struct MpiTransport {
  // MPI_Init_thread (serialized calls) and two private communicators; rank and
  // size. Waits poll *interrupt (Ctrl-C) without clearing it.
  void (*start)(int &rank, int &size, const volatile std::sig_atomic_t *interrupt);
  // "Open MPI v4.1.4" (no initialisation needed).
  std::string (*version)();
  // Each collective returns "" or an error message starting with WHO: the trees
  // differ (check), a process finished its program without making this exchange,
  // or Ctrl-C arrived while waiting (*interrupt is then still set), or an earlier
  // exchange failed half-way so the processes are out of step.
  //
  // check: "" when every process passed the same signature; otherwise WHO's
  // message naming each rank's `text`.
  std::string (*check)(const char *who, uint64_t signature, const std::string &text);
  // The element-wise sum (kind 0), mean (1) or max (2) of every process's n
  // doubles `in`, in rank order, into `out` (n < 2^31 per process block).
  std::string (*reduce)(const char *who, const double *in, double *out, int64_t n, int kind);
  // Root's n doubles into every process's `data`.
  std::string (*broadcast)(const char *who, double *data, int64_t n, int root);
  std::string (*barrier)(const char *who);
  void (*abort)(int status);  // MPI_Abort on every process; does not return
  // The end of a program that ends normally: tells every other process how many
  // exchanges this one completed, waits until every other has ended too (each
  // either finishes the same way or fails, which aborts the job), then
  // MPI_Finalize.
  void (*finish)();
};

}  // namespace kiln

extern "C" const kiln::MpiTransport *kiln_mpi_transport();

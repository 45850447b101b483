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
#pragma once
#include <cstdint>
#include <string>

namespace kiln {

struct MpiTransport {
  // MPI_Init_thread (serialized calls) and a private communicator; rank and size.
  void (*start)(int &rank, int &size);
  // "Open MPI v4.1.4" (no initialisation needed).
  std::string (*version)();
  // "" when every process passed the same signature; otherwise WHO's message
  // naming each rank's `text`.
  std::string (*check)(const char *who, uint64_t signature, const std::string &text);
  // The element-wise sum (kind 0), mean (1) or max (2) of every process's n
  // doubles `in`, in rank order, into `out` (n < 2^31 per process block).
  void (*reduce)(const double *in, double *out, int64_t n, int kind);
  // Root's n doubles into every process's `data`.
  void (*broadcast)(double *data, int64_t n, int root);
  void (*barrier)();
  void (*abort)(int status);  // MPI_Abort on every process; does not return
  void (*finalize)();
};

}  // namespace kiln

extern "C" const kiln::MpiTransport *kiln_mpi_transport();

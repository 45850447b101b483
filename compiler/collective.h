// collective.h — the exchange a graph's Allreduce node performs (docs/distributed.md),
// the same for the graph interpreter and for compiled kernels.
//
// Invariants:
//   * The compiler links no MPI: the layer that does (stdlib/mpi.cpp) installs the
//     exchange with set_allreduce_exchange. Without one, a leaf is its own
//     reduction (a single process: sum and max are the leaf, mean divides by 1).
//   * kiln_allreduce_leaf never throws: kernels call it from native code, through
//     which no C++ exception may unwind. An exchange that fails (the leaf's
//     signature differs across processes, which every process learns from the
//     same check) records its message; every later exchange then only copies its
//     input, on every process alike, and the caller raises the message with
//     raise_pending_collective_error once the kernel or graph has returned.
#pragma once
#include <cstdint>
#include <string>

namespace kiln {

// The reductions, in Allreduce's `axis` attribute.
enum class ReduceKind : int8_t { Sum = 0, Mean = 1, Max = 2 };
const char *reduce_kind_name(ReduceKind k);  // "sum", "mean", "max"

// Reduces n doubles of every process's `in` into `out` (distinct buffers), all
// processes calling it in the same order with leaves of the same signature.
// Returns an empty string, or the error message when the signatures differ
// (nothing was exchanged then).
using AllreduceExchange = std::string (*)(const double *in, double *out, int64_t n, ReduceKind kind,
                                          uint64_t signature);
// Installs `exchange` and returns the one it replaces (nullptr: none).
AllreduceExchange set_allreduce_exchange(AllreduceExchange exchange);

// Raises (as a Lisp error) the message of an exchange that failed since the last
// call, if any, and clears it.
void raise_pending_collective_error();

}  // namespace kiln

// The symbol compiled kernels import (the kiln binary exports it by name).
extern "C" void kiln_allreduce_leaf(const double *in, double *out, int64_t n, int32_t kind,
                                    uint64_t signature);

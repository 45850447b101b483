// collective.cpp — the Allreduce node's exchange hook and its pending error (collective.h).
#include "compiler/collective.h"

#include <cstring>

#include "runtime/error.h"

namespace kiln {

namespace {
AllreduceExchange g_exchange = nullptr;
// Written only by the interpreter thread (kernels run their exchanges on the
// calling thread, never on pool workers).
std::string g_pending;
bool g_failed = false;
}  // namespace

const char *reduce_kind_name(ReduceKind k) {
  switch (k) {
  case ReduceKind::Sum: return "sum";
  case ReduceKind::Mean: return "mean";
  case ReduceKind::Max: return "max";
  }
  return "?";
}

AllreduceExchange set_allreduce_exchange(AllreduceExchange exchange) {
  AllreduceExchange previous = g_exchange;
  g_exchange = exchange;
  return previous;
}

void raise_pending_collective_error() {
  if (!g_failed) return;
  std::string msg = std::move(g_pending);
  g_pending.clear();
  g_failed = false;
  throw_error(msg);
}

}  // namespace kiln

extern "C" void kiln_allreduce_leaf(const double *in, double *out, int64_t n, int32_t kind,
                                    uint64_t signature) {
  using namespace kiln;
  if (g_failed || !g_exchange) {
    // One process (or an earlier leaf failed): x itself; x / 1 is x bit for bit.
    std::memmove(out, in, size_t(n) * sizeof(double));
    return;
  }
  try {
    std::string err = g_exchange(in, out, n, ReduceKind(kind), signature);
    if (!err.empty()) {
      g_pending = std::move(err);
      g_failed = true;
      std::memmove(out, in, size_t(n) * sizeof(double));
    }
  } catch (...) {  // nothing may unwind into a kernel
    g_pending = "mpi-allreduce: the exchange failed";
    g_failed = true;
  }
}

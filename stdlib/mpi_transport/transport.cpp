// transport.cpp — the MPI plugin (mpi_transport.h): every MPI call Kiln makes.
//
// Invariant: see mpi_transport.h and stdlib/mpi.h. Every element of a reduction is
// ((t0 + t1) + t2) + ... in rank order (MPI_Allreduce's own order is not specified).
// From three processes on it is a reduce-scatter then an allgather: rank k combines
// block k (mpi-shard's blocks of the elements) and the other ranks receive its bits;
// two processes each receive the other's whole leaf and combine it themselves.
#include "mpi_transport.h"

// The C interface only: OpenMPI's deprecated C++ bindings need a library of their own.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstring>
#include <vector>

namespace kiln {
namespace {

MPI_Comm g_comm = MPI_COMM_NULL;  // a duplicate of MPI_COMM_WORLD: only Kiln's messages
int g_rank = 0, g_size = 1;

void start(int &rank, int &size) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Comm_rank(g_comm, &g_rank);
  MPI_Comm_size(g_comm, &g_size);
  rank = g_rank;
  size = g_size;
}

std::string version() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  std::string s(v, size_t(len));
  return s.substr(0, s.find_first_of(",\n"));
}

std::string check(const char *who, uint64_t signature, const std::string &text) {
  std::vector<uint64_t> all(static_cast<size_t>(g_size));
  MPI_Allgather(&signature, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, g_comm);
  bool same = true;
  for (uint64_t s : all) same = same && s == all[0];
  if (same) return "";
  std::string mine = text.substr(0, 400);
  int len = int(mine.size());
  std::vector<int> lens(static_cast<size_t>(g_size)), displs(static_cast<size_t>(g_size));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, g_comm);
  int total = 0;
  for (int r = 0; r < g_size; r++) displs[size_t(r)] = total, total += lens[size_t(r)];
  std::string texts(size_t(total), ' ');
  MPI_Allgatherv(mine.data(), len, MPI_CHAR, texts.data(), lens.data(), displs.data(), MPI_CHAR, g_comm);
  std::string msg =
      std::string(who) +
      ": the trees (structure, shapes or reduction) differ across processes, checked before any data moved:";
  for (int r = 0; r < g_size; r++)
    msg += std::string(r ? ";" : "") + " rank " + std::to_string(r) + " has " +
           texts.substr(size_t(displs[size_t(r)]), size_t(lens[size_t(r)]));
  return msg;
}

// runtime/tensor_ops.cpp's `maximum`: the first operand on ties and when it is NaN.
inline double maximum(double x, double y) { return (x >= y || x != x) ? x : y; }

// out[i] = (pieces[0][i] op pieces[1][i]) op pieces[2][i] ..., then / p for a mean.
void combine(const double *const *pieces, int p, double *acc, int64_t len, int kind) {
  const double *p0 = pieces[0], *p1 = pieces[1];
  if (kind == 2) {
    for (int64_t i = 0; i < len; i++) acc[i] = maximum(p0[i], p1[i]);
    for (int q = 2; q < p; q++)
      for (int64_t i = 0; i < len; i++) acc[i] = maximum(acc[i], pieces[q][i]);
    return;
  }
  for (int64_t i = 0; i < len; i++) acc[i] = p0[i] + p1[i];
  for (int q = 2; q < p; q++)
    for (int64_t i = 0; i < len; i++) acc[i] = acc[i] + pieces[q][i];
  if (kind == 1)
    for (int64_t i = 0; i < len; i++) acc[i] = acc[i] / double(p);
}

void reduce(const double *in, double *out, int64_t n, int kind) {
  const int p = g_size, me = g_rank;
  static std::vector<double> received;
  std::vector<MPI_Request> reqs;
  reqs.reserve(size_t(2 * p));
  std::vector<const double *> pieces(static_cast<size_t>(p));
  if (p == 2) {
    // Two processes: one round. Each sends its whole leaf and combines both itself;
    // both compute t0 + t1 from the same operands in the same order, so the bits
    // agree, and the traffic equals the reduce-scatter's two rounds.
    received.resize(size_t(n));
    reqs.resize(2);
    MPI_Irecv(received.data(), int(n), MPI_DOUBLE, 1 - me, 7, g_comm, &reqs[0]);
    MPI_Isend(in, int(n), MPI_DOUBLE, 1 - me, 7, g_comm, &reqs[1]);
    MPI_Waitall(2, reqs.data(), MPI_STATUSES_IGNORE);
    pieces[size_t(me)] = in;
    pieces[size_t(1 - me)] = received.data();
    combine(pieces.data(), p, out, n, kind);
    return;
  }
  const int64_t base = n / p, extra = n % p;
  auto first = [&](int k) { return k * base + (k < extra ? k : extra); };
  auto count = [&](int k) { return base + (k < extra ? 1 : 0); };
  const int64_t mine = count(me), lo = first(me);
  received.resize(size_t(mine) * size_t(p));  // rank q's piece of my block at q * mine
  for (int q = 0; q < p; q++) {
    pieces[size_t(q)] = q == me ? in + lo : received.data() + size_t(q) * size_t(mine);
    if (q == me) continue;
    if (mine) {
      reqs.emplace_back();
      MPI_Irecv(received.data() + size_t(q) * size_t(mine), int(mine), MPI_DOUBLE, q, 7, g_comm,
                &reqs.back());
    }
    if (count(q)) {
      reqs.emplace_back();
      MPI_Isend(in + first(q), int(count(q)), MPI_DOUBLE, q, 7, g_comm, &reqs.back());
    }
  }
  MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  combine(pieces.data(), p, out + lo, mine, kind);
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  for (int q = 0; q < p; q++) counts[size_t(q)] = int(count(q)), displs[size_t(q)] = int(first(q));
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts.data(), displs.data(), MPI_DOUBLE, g_comm);
}

void broadcast(double *data, int64_t n, int root) { MPI_Bcast(data, int(n), MPI_DOUBLE, root, g_comm); }
void barrier() { MPI_Barrier(g_comm); }
void abort_all(int status) { MPI_Abort(MPI_COMM_WORLD, status); }
void finalize() { MPI_Finalize(); }

const MpiTransport kTransport = {start, version, check, reduce, broadcast, barrier, abort_all, finalize};

}  // namespace
}  // namespace kiln

extern "C" const kiln::MpiTransport *kiln_mpi_transport() { return &kiln::kTransport; }

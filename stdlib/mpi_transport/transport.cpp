// transport.cpp — the MPI plugin (mpi_transport.h): every MPI call Kiln makes.
//
// Invariant: see mpi_transport.h and stdlib/mpi.h. Every element of a reduction is
// ((t0 + t1) + t2) + ... in rank order (MPI_Allreduce's own order is not specified).
// From three processes on it is a reduce-scatter then an allgather: rank k combines
// block k (mpi-shard's blocks of the elements) and the other ranks receive its bits;
// two processes each receive the other's whole leaf and combine it themselves.
//
// Every exchange is non-blocking (MPI_Isend/Irecv, MPI_Iallgather, MPI_Ibcast,
// MPI_Ibarrier) and waited for by polling, so that a wait also watches for a peer
// that has ended (its notice on the notice communicator) and for Ctrl-C: a blocking
// MPI call would wait forever for a process that returned normally.
#include "stdlib/mpi_transport/mpi_transport.h"

// The C interface only: OpenMPI's deprecated C++ bindings need a library of their own.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>
#include <time.h>

#include <chrono>
#include <cstring>
#include <vector>

namespace kiln {
namespace {

MPI_Comm g_comm = MPI_COMM_NULL;    // a duplicate of MPI_COMM_WORLD: only Kiln's exchanges
MPI_Comm g_notice = MPI_COMM_NULL;  // another: only the end-of-program notices
int g_rank = 0, g_size = 1;
const volatile std::sig_atomic_t *g_interrupt = nullptr;

// The collective calls (check, reduce, broadcast, barrier) this process completed:
// every process counts the same calls, so a peer that ended having completed
// fewer than the call this process waits in will never join it.
int64_t g_completed = 0;
// A process's end-of-program notice: the calls it completed, and the rank whose
// end made one of its exchanges fail (-1: none), so that a process that ended
// only because another did is not blamed in the others' messages.
struct Notice {
  int64_t completed = -1;  // -1: still running
  int64_t cause = -1;
};
// Per rank, what its notice said; the receives of the notices are posted at start.
std::vector<Notice> g_finished;
std::vector<Notice> g_notice_in;
std::vector<MPI_Request> g_notice_reqs;
std::vector<int> g_notice_indices;
Notice g_notice_out;  // this process's own notice, alive until its sends complete
constexpr int kNoticeTag = 1;

// Why this process can exchange no more ("" while it can): a wait failed half-way,
// because the process of rank g_cause ended (-1: Ctrl-C).
std::string g_out_of_step;
int g_cause = -1;

void start(int &rank, int &size, const volatile std::sig_atomic_t *interrupt) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_notice);
  MPI_Comm_rank(g_comm, &g_rank);
  MPI_Comm_size(g_comm, &g_size);
  g_interrupt = interrupt;
  const size_t p = size_t(g_size);
  g_finished.assign(p, Notice{});
  g_notice_in.assign(p, Notice{});
  g_notice_reqs.assign(p, MPI_REQUEST_NULL);
  g_notice_indices.assign(p, 0);
  for (int q = 0; q < g_size; q++)
    if (q != g_rank)
      MPI_Irecv(&g_notice_in[size_t(q)], 2, MPI_INT64_T, q, kNoticeTag, g_notice, &g_notice_reqs[size_t(q)]);
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

// Records the notices that arrived.
void poll_notices() {
  if (g_size < 2) return;
  int count = 0;
  MPI_Testsome(g_size, g_notice_reqs.data(), &count, g_notice_indices.data(), MPI_STATUSES_IGNORE);
  for (int i = 0; i < count; i++) {  // MPI_UNDEFINED (negative) once every notice is in
    size_t q = size_t(g_notice_indices[size_t(i)]);
    g_finished[q] = g_notice_in[q];
  }
}

// A rank that ended before completing the call this process is in (the one whose
// end caused it, when that ended too), or -1.
int absent_peer() {
  for (int q = 0; q < g_size; q++) {
    const Notice &n = g_finished[size_t(q)];
    if (n.completed >= 0 && n.completed <= g_completed) return n.cause >= 0 ? int(n.cause) : q;
  }
  return -1;
}

// A wait failed half-way, because rank `cause` ended (-1: Ctrl-C): WHO's message;
// this process exchanges no more, and says why (g_out_of_step) when asked to.
std::string fail(const char *who, int cause, const char *advice) {
  g_cause = cause;
  std::string now, then;
  if (cause >= 0) {
    std::string rank =
        "the process of rank " + std::to_string(cause) + " finished its program while this process ";
    now = rank + "waits for it in an exchange";
    then = rank + "waited for it in an exchange";
  } else {
    now = then = "interrupted (Ctrl-C) while waiting for the other processes in an exchange";
  }
  g_out_of_step = then;
  return std::string(who) + ": " + now + advice;
}
constexpr const char *kSameCalls = " (every process must make the same mpi-* calls in the same order)";

// "" if this process may start an exchange; else why not.
std::string refuse(const char *who) {
  if (!g_out_of_step.empty())
    return std::string(who) +
           ": no exchange is possible after an earlier one failed half-way on this process: " + g_out_of_step;
  poll_notices();  // a peer that already ended: fail now, before anything is posted
  int q = absent_peer();
  return q < 0 ? std::string() : fail(who, q, kSameCalls);
}

void nap(long nanoseconds) {
  timespec ts{0, nanoseconds};
  nanosleep(&ts, nullptr);
}

// Waits for n requests, polling. A short wait spins (an exchange's handshakes are
// microseconds apart when both processes run); a longer one yields the core to a
// peer that may need it (mpirun --oversubscribe, a loaded machine), and one past a
// second sleeps between polls, as a peer busy with other work may take minutes.
std::string wait_for(const char *who, int n, MPI_Request *reqs) {
  auto t0 = std::chrono::steady_clock::now();
  bool patient = false;
  for (long spin = 0;; spin++) {
    int done = 0;
    MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    if (done) return "";
    poll_notices();
    int q = absent_peer();
    if (q >= 0) return fail(who, q, kSameCalls);
    if (g_interrupt && *g_interrupt) return fail(who, -1, "");
    if (spin < 2000) continue;
    if (!patient && (spin & 1023) == 0)
      patient = std::chrono::steady_clock::now() - t0 > std::chrono::seconds(1);
    if (patient) nap(200000);
    else sched_yield();
  }
}

std::string wait_for(const char *who, std::vector<MPI_Request> &reqs) {
  return wait_for(who, int(reqs.size()), reqs.data());
}

// One collective call completed: counted, and "".
std::string completed() {
  g_completed++;
  return "";
}

std::string check(const char *who, uint64_t signature, const std::string &text) {
  if (std::string e = refuse(who); !e.empty()) return e;
  std::vector<uint64_t> all(static_cast<size_t>(g_size));
  MPI_Request req;
  MPI_Iallgather(&signature, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, g_comm, &req);
  if (std::string e = wait_for(who, 1, &req); !e.empty()) return e;
  bool same = true;
  for (uint64_t s : all) same = same && s == all[0];
  if (same) return completed();
  std::string mine = text.substr(0, 400);
  int len = int(mine.size());
  std::vector<int> lens(static_cast<size_t>(g_size)), displs(static_cast<size_t>(g_size));
  MPI_Iallgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, g_comm, &req);
  if (std::string e = wait_for(who, 1, &req); !e.empty()) return e;
  int total = 0;
  for (int r = 0; r < g_size; r++) displs[size_t(r)] = total, total += lens[size_t(r)];
  std::string texts(size_t(total), ' ');
  MPI_Iallgatherv(mine.data(), len, MPI_CHAR, texts.data(), lens.data(), displs.data(), MPI_CHAR, g_comm,
                  &req);
  if (std::string e = wait_for(who, 1, &req); !e.empty()) return e;
  completed();
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

std::string reduce(const char *who, const double *in, double *out, int64_t n, int kind) {
  if (std::string e = refuse(who); !e.empty()) return e;
  const int p = g_size, me = g_rank;
  // Not freed on a failed wait (MPI may still write it): after one, no call comes here.
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
    if (std::string e = wait_for(who, reqs); !e.empty()) return e;
    pieces[size_t(me)] = in;
    pieces[size_t(1 - me)] = received.data();
    combine(pieces.data(), p, out, n, kind);
    return completed();
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
  if (std::string e = wait_for(who, reqs); !e.empty()) return e;
  combine(pieces.data(), p, out + lo, mine, kind);
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  for (int q = 0; q < p; q++) counts[size_t(q)] = int(count(q)), displs[size_t(q)] = int(first(q));
  MPI_Request req;
  MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts.data(), displs.data(), MPI_DOUBLE, g_comm,
                  &req);
  if (std::string e = wait_for(who, 1, &req); !e.empty()) return e;
  return completed();
}

std::string broadcast(const char *who, double *data, int64_t n, int root) {
  if (std::string e = refuse(who); !e.empty()) return e;
  MPI_Request req;
  MPI_Ibcast(data, int(n), MPI_DOUBLE, root, g_comm, &req);
  if (std::string e = wait_for(who, 1, &req); !e.empty()) return e;
  return completed();
}

std::string barrier(const char *who) {
  if (std::string e = refuse(who); !e.empty()) return e;
  MPI_Request req;
  MPI_Ibarrier(g_comm, &req);
  if (std::string e = wait_for(who, 1, &req); !e.empty()) return e;
  return completed();
}

void abort_all(int status) { MPI_Abort(MPI_COMM_WORLD, status); }

void finish() {
  if (g_size > 1) {
    g_notice_out = Notice{g_completed, g_cause};
    std::vector<MPI_Request> sends;
    for (int q = 0; q < g_size; q++) {
      if (q == g_rank) continue;
      sends.emplace_back();
      MPI_Isend(&g_notice_out, 2, MPI_INT64_T, q, kNoticeTag, g_notice, &sends.back());
    }
    // The others may compute for a long time yet: poll rarely, leave them the cores.
    for (;;) {
      poll_notices();
      bool all = true;
      for (int q = 0; q < g_size; q++) all = all && (q == g_rank || g_finished[size_t(q)].completed >= 0);
      if (all) break;
      nap(1000000);
    }
    MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  }
  MPI_Finalize();
}

const MpiTransport kTransport = {start, version, check, reduce, broadcast, barrier, abort_all, finish};

}  // namespace
}  // namespace kiln

extern "C" const kiln::MpiTransport *kiln_mpi_transport() { return &kiln::kTransport; }

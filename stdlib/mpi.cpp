// mpi.cpp — mpi-rank, mpi-size, mpi-barrier, mpi-allreduce, mpi-broadcast, mpi-shard
// and the exchange behind the graph's Allreduce node (mpi.h, compiler/collective.h).
//
// Invariant: see mpi.h. Every MPI call is made by the interpreter thread (kernels
// run their exchanges on the thread that called them), so MPI is initialised with
// MPI_THREAD_SERIALIZED and finalised by the main thread after that thread ended.
#include "stdlib/mpi.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/collective.h"
#include "compiler/trace.h"
#include "compiler/tree.h"
#include "runtime/eval.h"
#include "runtime/gc.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"

#ifdef KILN_HAVE_MPI
#include <dlfcn.h>
#include <unistd.h>

#include "stdlib/mpi_transport/mpi_transport.h"
#endif

namespace kiln {

namespace {

// ---- signatures and descriptions of trees -----------------------------------------

uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 31);
}

// A leaf's shape, and whether Lisp sees it as a number.
void leaf_shape(Value v, Shape &s, bool &number) {
  if (symbolic_shape(v, s, number)) return;
  number = !is_tensor(v);
  s = number ? Shape{} : tensor_of(v)->shape;
}

// The structure and shapes of a checked tree: its signature and its text.
void describe(Value t, uint64_t &h, std::string &text) {
  if (is_tree_entry(t)) {  // (KEY . TREE) of a named tree: the key is structure too
    std::string_view key = symbol_name(car(t));
    h = mix(h, 0x2e);
    for (char c : key) h = mix(h, uint64_t(uint8_t(c)));
    text += "(";
    text += key;
    text += " . ";
    describe(cdr(t), h, text);
    text += ')';
    return;
  }
  if (is_vector(t) || is_pair(t) || t == NIL) {
    bool vec = is_vector(t);
    h = mix(h, vec ? 0x76 : 0x28);
    text += vec ? "#(" : "(";
    int64_t i = 0;
    auto child = [&](Value c) {
      if (i++) text += ' ';
      describe(c, h, text);
    };
    if (vec)
      for (int64_t k = 0; k < as<Vector>(t)->len; k++) child(as<Vector>(t)->items[k]);
    else
      for (Value c = t; is_pair(c); c = cdr(c)) child(car(c));
    h = mix(h, 0x29);
    text += ')';
    return;
  }
  Shape s;
  bool number;
  leaf_shape(t, s, number);
  h = mix(h, number ? 1 : 2 + uint64_t(s.rank));
  for (int d = 0; d < s.rank; d++) h = mix(h, uint64_t(s.dim[d]));
  text += number ? "number" : shape_string(s);
}

struct TreeInfo {
  int64_t nleaves;
  uint64_t signature;
  std::string text;  // "'sum of (64x10 1x10)"
};

TreeInfo tree_info(const char *who, Value tree, const char *op, bool symbolic_ok) {
  TreeInfo info;
  info.nleaves = tree_check(who, "TREE", tree, symbolic_ok);
  info.signature = 0x6b696c6e;
  for (const char *c = op; *c; c++) info.signature = mix(info.signature, uint64_t(uint8_t(*c)));
  info.text = std::string(op) + " of ";
  describe(tree, info.signature, info.text);
  return info;
}

ReduceKind reduction_arg(Value v) {
  if (is_symbol(v)) {
    std::string_view n = symbol_name(v);
    if (n == "sum") return ReduceKind::Sum;
    if (n == "mean") return ReduceKind::Mean;
    if (n == "max") return ReduceKind::Max;
  }
  type_error("mpi-allreduce", 2, "'sum, 'mean or 'max", v);
}

// ---- processes ----------------------------------------------------------------------

[[maybe_unused]] bool launched() {
  static const bool l =
      std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
  return l;
}

#ifdef KILN_HAVE_MPI

// The plugin next to the binary (a build tree), else where `make install` puts it.
std::string plugin_path() {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string dir(exe, size_t(n));
    dir = dir.substr(0, dir.rfind('/'));
    std::string here = dir + "/libkiln_mpi.so";
    if (access(here.c_str(), R_OK) == 0) return here;
  }
  return KILN_MPI_PLUGIN_INSTALLED;
}

// The plugin's table, or nullptr with the reason in `why` (no Lisp error here:
// `kiln --version` asks before the collector is up).
const MpiTransport *load_transport(std::string &why) {
  static const MpiTransport *t = nullptr;
  if (t) return t;
  std::string path = plugin_path();
  // RTLD_GLOBAL: OpenMPI's own components (dlopened by libmpi) need libmpi's symbols.
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    why = dlerror();
    return nullptr;
  }
  auto entry = reinterpret_cast<const MpiTransport *(*)()>(dlsym(h, "kiln_mpi_transport"));
  if (!entry) {
    why = path + " has no kiln_mpi_transport";
    return nullptr;
  }
  t = entry();
  return t;
}

const MpiTransport *transport(const char *who) {
  std::string why;
  const MpiTransport *t = load_transport(why);
  if (!t) throw_errorf("{}: cannot load Kiln's MPI plugin: {}", who, why);
  return t;
}

struct World {
  bool up = false;
  int rank = 0, size = 1;
  const MpiTransport *mpi = nullptr;
};
World g_world;

World &world(const char *who) {
  if (g_world.up || !launched()) return g_world;
  g_world.mpi = transport(who);
  g_world.mpi->start(g_world.rank, g_world.size, &g_interrupt);
  g_world.up = true;
  return g_world;
}

// Kernels' Allreduce leaves: signature -> what the tree looked like when traced,
// for the mismatch message (the signature alone says nothing to a person).
std::vector<std::pair<uint64_t, std::string>> &leaf_texts() {
  static std::vector<std::pair<uint64_t, std::string>> t;
  return t;
}
std::string leaf_text(uint64_t sig) {
  for (auto &e : leaf_texts())
    if (e.first == sig) return e.second;
  return fmt::format("an exchange of signature {:016x}", sig);
}

std::string check_signatures(const char *who, uint64_t signature, const std::string &text) {
  World &w = world(who);
  return w.size == 1 ? std::string() : w.mpi->check(who, signature, text);
}

std::string too_large(const char *who, int64_t n) {
  return fmt::format("{}: a leaf of {} elements is more than one exchange can carry (2^31 - 1)", who, n);
}

std::string reduce_leaf(const double *in, double *out, int64_t n, ReduceKind kind) {
  World &w = world("mpi-allreduce");
  if (w.size == 1 || n == 0) {
    std::memmove(out, in, size_t(n) * sizeof(double));  // t0 / 1 is t0 bit for bit
    return "";
  }
  return w.mpi->reduce("mpi-allreduce", in, out, n, int(kind));
}

// The exchange compiled kernels and the graph interpreter call (collective.h).
// Ctrl-C during its wait becomes the step's error (cleared here: the kernel
// goes on to its end, and the error is what stops the step).
std::string exchange_leaf(const double *in, double *out, int64_t n, ReduceKind kind, uint64_t signature) {
  std::string err = check_signatures("mpi-allreduce", signature, leaf_text(signature));
  if (err.empty() && n > INT32_MAX) err = too_large("mpi-allreduce", n);
  if (err.empty()) err = reduce_leaf(in, out, n, kind);
  if (!err.empty() && g_interrupt) g_interrupt = 0;
  return err;
}

// A builtin's exchange failed: Ctrl-C during a wait is an interrupt as anywhere
// else; any other failure is an error with the transport's message.
void raise_exchange_error(const std::string &err) {
  if (err.empty()) return;
  check_interrupt();
  throw_error(err);
}

const BuiltinRegistrar install_exchange([] { set_allreduce_exchange(exchange_leaf); });

[[noreturn]] void not_built_in(const char *) { std::abort(); }

#else

struct World {
  int rank = 0, size = 1;
};
World &world(const char *) {
  static World w;
  return w;
}

[[noreturn]] void not_built_in(const char *who) {
  throw_errorf("{}: MPI is not built in (kiln was built without libopenmpi-dev; see docs/distributed.md)",
               who);
}

#endif

#ifdef KILN_HAVE_MPI
constexpr bool kBuiltIn = true;
#else
constexpr bool kBuiltIn = false;
#endif

// ---- the builtins -------------------------------------------------------------------

Value b_mpi_rank(int, Value *) {
  if (!kBuiltIn) not_built_in("mpi-rank");
  return make_int(world("mpi-rank").rank);
}

Value b_mpi_size(int, Value *) {
  if (!kBuiltIn) not_built_in("mpi-size");
  return make_int(world("mpi-size").size);
}

Value b_mpi_barrier(int, Value *) {
  if (!kBuiltIn) not_built_in("mpi-barrier");
#ifdef KILN_HAVE_MPI
  World &w = world("mpi-barrier");
  if (w.size > 1) raise_exchange_error(w.mpi->barrier("mpi-barrier"));
#endif
  return UNSPEC;
}

Value b_mpi_shard(int, Value *argv) {
  if (!kBuiltIn) not_built_in("mpi-shard");
  int64_t n = arg_index("mpi-shard", 1, argv[0]);
  World &w = world("mpi-shard");
  int64_t base = n / w.size, extra = n % w.size;
  int64_t first = w.rank * base + (w.rank < extra ? w.rank : extra);
  int64_t count = base + (w.rank < extra ? 1 : 0);
  Value out = NIL;
  // As long as its count: it answers Ctrl-C (crash_fuzz found (mpi-shard 2^31) ignoring it).
  for (int64_t i = first + count - 1; i >= first; i--) {
    if ((i & 0xFFFF) == 0) check_interrupt();
    out = cons(make_int(i), out);
  }
  return out;
}

// The leaves of a checked tree, in GC memory (they are Lisp values).
Value *leaves_of(Value tree, int64_t nleaves) {
  auto *leaves = static_cast<Value *>(gc_alloc(size_t(nleaves + 1) * sizeof(Value)));
  int64_t k = 0;
  tree_flatten(tree, leaves, k);
  return leaves;
}

// Each leaf's data as doubles: a tensor's own, a number's in `scalars`.
[[maybe_unused]] const double *leaf_data(Value leaf, double &scalar) {
  if (is_tensor(leaf)) return tensor_of(leaf)->data;
  scalar = number_as_double(leaf);
  return &scalar;
}

Value b_mpi_allreduce(int argc, Value *argv) {
  if (!kBuiltIn) not_built_in("mpi-allreduce");
  ReduceKind kind = argc > 1 ? reduction_arg(argv[1]) : ReduceKind::Sum;
  const char *names[] = {"'sum", "'mean", "'max"};
  bool traced = tracing_active();
  TreeInfo info = tree_info("mpi-allreduce", argv[0], names[int(kind)], traced);
  Value *leaves = leaves_of(argv[0], info.nleaves);
  auto *results = static_cast<Value *>(gc_alloc(size_t(info.nleaves + 1) * sizeof(Value)));
  if (traced) {
    // Inside a traced function: one Allreduce node per leaf, each checking its own
    // signature when the kernel (or graph) runs.
    for (int64_t k = 0; k < info.nleaves; k++) {
      uint64_t sig = mix(info.signature, uint64_t(k));
#ifdef KILN_HAVE_MPI
      auto &texts = leaf_texts();
      bool known = false;
      for (auto &e : texts) known = known || e.first == sig;
      if (!known) texts.emplace_back(sig, fmt::format("leaf {} of {}", k + 1, info.text));
#endif
      results[k] = record_allreduce("mpi-allreduce", leaves[k], int(kind), sig);
    }
  } else {
#ifdef KILN_HAVE_MPI
    raise_exchange_error(check_signatures("mpi-allreduce", info.signature, info.text));
    for (int64_t k = 0; k < info.nleaves; k++)
      if (is_tensor(leaves[k]) && tensor_of(leaves[k])->shape.size() > INT32_MAX)
        throw_error(too_large("mpi-allreduce", tensor_of(leaves[k])->shape.size()));
    for (int64_t k = 0; k < info.nleaves; k++) {
      double scalar = 0.0, result = 0.0;
      const double *in = leaf_data(leaves[k], scalar);
      if (is_tensor(leaves[k])) {
        Tensor *t = alloc_tensor(tensor_of(leaves[k])->shape);
        results[k] = from_ptr(t);
        raise_exchange_error(reduce_leaf(in, t->data, t->shape.size(), kind));
      } else {
        raise_exchange_error(reduce_leaf(in, &result, 1, kind));
        results[k] = make_double(result);
      }
    }
#endif
  }
  int64_t k = 0;
  return tree_rebuild(tree_skeleton(argv[0]), results, k);
}

Value b_mpi_broadcast(int, Value *argv) {
  if (!kBuiltIn) not_built_in("mpi-broadcast");
  if (tracing_active()) throw_error("graph: 'mpi-broadcast' is not supported inside a traced function");
  World &w = world("mpi-broadcast");
  int64_t root = arg_index("mpi-broadcast", 2, argv[1]);
  if (root >= w.size) throw_errorf("mpi-broadcast: ROOT must be a rank in [0, {}), got {}", w.size, root);
  TreeInfo info = tree_info("mpi-broadcast", argv[0], "broadcast", false);
#ifdef KILN_HAVE_MPI
  raise_exchange_error(check_signatures("mpi-broadcast", info.signature, info.text));
  Value *leaves = leaves_of(argv[0], info.nleaves);
  for (int64_t k = 0; k < info.nleaves; k++)
    if (is_tensor(leaves[k]) && tensor_of(leaves[k])->shape.size() > INT32_MAX)
      throw_error(too_large("mpi-broadcast", tensor_of(leaves[k])->shape.size()));
  auto *results = static_cast<Value *>(gc_alloc(size_t(info.nleaves + 1) * sizeof(Value)));
  for (int64_t k = 0; k < info.nleaves; k++) {
    if (w.rank == root) {  // sends its own tensors (immutable); numbers come back inexact
      double scalar = 0.0;
      const double *d = leaf_data(leaves[k], scalar);
      int64_t n = is_tensor(leaves[k]) ? tensor_of(leaves[k])->shape.size() : 1;
      if (w.size > 1)
        raise_exchange_error(w.mpi->broadcast("mpi-broadcast", const_cast<double *>(d), n, int(root)));
      results[k] = is_tensor(leaves[k]) ? leaves[k] : make_double(scalar);
    } else if (is_tensor(leaves[k])) {
      Tensor *t = alloc_tensor(tensor_of(leaves[k])->shape);
      results[k] = from_ptr(t);
      raise_exchange_error(w.mpi->broadcast("mpi-broadcast", t->data, t->shape.size(), int(root)));
    } else {
      double x = 0.0;
      raise_exchange_error(w.mpi->broadcast("mpi-broadcast", &x, 1, int(root)));
      results[k] = make_double(x);
    }
  }
  int64_t k = 0;
  return tree_rebuild(tree_skeleton(argv[0]), results, k);
#else
  return argv[0];
#endif
}

const BuiltinRegistrar mpi_registrar([] {
  defbuiltin("mpi-rank", 0, 0, b_mpi_rank,
             "(mpi-rank): this process's rank under an MPI launcher, 0..(mpi-size)-1; 0 without one.");
  defbuiltin("mpi-size", 0, 0, b_mpi_size,
             "(mpi-size): the number of processes the MPI launcher started; 1 without one.");
  defbuiltin("mpi-barrier", 0, 0, b_mpi_barrier, "(mpi-barrier): waits until every process has reached it.");
  defbuiltin(
      "mpi-allreduce", 1, 2, b_mpi_allreduce,
      "(mpi-allreduce TREE ['sum|'mean|'max]): every process's TREE (numbers and tensors, the same "
      "structure and shapes everywhere) reduced element-wise in rank order, ((t0 + t1) + t2) + ..., so "
      "every process gets the same bits; numbers come back inexact. Default 'sum.");
  defbuiltin("mpi-broadcast", 2, 2, b_mpi_broadcast,
             "(mpi-broadcast TREE ROOT): process ROOT's TREE on every process (every TREE of the same "
             "structure and shapes); numbers come back inexact.");
  defbuiltin(
      "mpi-shard", 1, 1, b_mpi_shard,
      "(mpi-shard N): the indices 0..N-1 this process owns: contiguous blocks in rank order, the first "
      "N mod (mpi-size) processes owning one more.");
});

}  // namespace

std::string mpi_build_description() {
#ifdef KILN_HAVE_MPI
  std::string why;
  const MpiTransport *t = load_transport(why);
  return t ? "with MPI (" + t->version() + ")" : "with MPI, but its plugin does not load: " + why;
#else
  return "without MPI";
#endif
}

void mpi_finish(int status) {
#ifdef KILN_HAVE_MPI
  if (status != 0 && launched()) {
    const char *rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!rank) rank = std::getenv("PMIX_RANK");
    std::string r = g_world.up ? std::to_string(g_world.rank) : (rank ? rank : "?");
    std::fprintf(stderr, "kiln: the process of rank %s failed (status %d); stopping every process\n",
                 r.c_str(), status);
    std::fflush(nullptr);
    // MPI_Abort kills the job at once; what this process just wrote is still on its
    // way through mpirun's output forwarding, and a moment lets it arrive.
    usleep(200 * 1000);
    if (g_world.up) g_world.mpi->abort(status);
    return;
  }
  if (!launched()) return;
  if (!g_world.up) {
    // A process that never exchanged still joins the end-of-program handshake:
    // the others may be waiting for it (in MPI_Init or an exchange), and only
    // its notice tells them it will never come.
    std::string why;
    g_world.mpi = load_transport(why);
    if (!g_world.mpi) return;
    g_world.mpi->start(g_world.rank, g_world.size, &g_interrupt);
    g_world.up = true;
  }
  g_world.mpi->finish();
#else
  (void)status;
#endif
}

}  // namespace kiln

// kernel_cache.cpp — key, safe directory and entries, locked atomic write, loading by
// file descriptor (kernel_cache.h).
#include "compiler/kernel_cache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "compiler/jit_context.h"
#include "runtime/eval.h"
#include "runtime/eval_internal.h"

namespace kiln {

std::string kernel_cache_dir() {
  if (const char *d = std::getenv("KILN_CACHE_DIR")) {
    if (std::strcmp(d, "off") == 0) return "";
    if (*d) return d;
  }
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kiln/kernels";
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kiln/kernels";
  return "";
}

std::string kernel_key_text(const std::string &canonical_graph) {
  std::string k = "kiln-kernel abi " + std::to_string(kKernelAbi) + " kiln " KILN_VERSION "\n";
  k += "libgccjit " + jit_version_string() + "\n";
  k += "cpu-level " + std::to_string(jit_cpu_level()) + " vector " + std::to_string(jit_vector_doubles()) +
       "\n";
  k += "flags";
  for (const std::string &f : jit_flags()) k += " " + f;
  for (const std::string &f : jit_link_flags()) k += " " + f;
  k += "\n";
  k += canonical_graph;
  return k;
}

static uint64_t fnv1a(const char *p, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; i++) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

static uint64_t fnv1a(const std::string &s, uint64_t h) { return fnv1a(s.data(), s.size(), h); }

std::string kernel_key_hash(const std::string &key_text) {
  uint64_t a = fnv1a(key_text, 0xcbf29ce484222325ull);
  // A second, independent walk (different basis, length folded in) so that two
  // keys share a name only if both 64-bit hashes collide.
  uint64_t b = fnv1a(key_text, 0x84222325cbf29ce4ull ^ (uint64_t(key_text.size()) * 0x9e3779b97f4a7c15ull));
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

void emit_kernel_identity(gcc_jit_context *ctx, const std::string &key_text) {
  gcc_jit_type *t_int = gcc_jit_context_get_type(ctx, GCC_JIT_TYPE_INT);
  gcc_jit_type *t_str = gcc_jit_context_get_type(ctx, GCC_JIT_TYPE_CONST_CHAR_PTR);
  gcc_jit_function *abi = gcc_jit_context_new_function(ctx, nullptr, GCC_JIT_FUNCTION_EXPORTED, t_int,
                                                       "kiln_kernel_abi", 0, nullptr, 0);
  gcc_jit_block *b = gcc_jit_function_new_block(abi, "entry");
  gcc_jit_block_end_with_return(b, nullptr, gcc_jit_context_new_rvalue_from_int(ctx, t_int, kKernelAbi));
  gcc_jit_function *key = gcc_jit_context_new_function(ctx, nullptr, GCC_JIT_FUNCTION_EXPORTED, t_str,
                                                       "kiln_kernel_key", 0, nullptr, 0);
  b = gcc_jit_function_new_block(key, "entry");
  gcc_jit_block_end_with_return(b, nullptr, gcc_jit_context_new_string_literal(ctx, key_text.c_str()));
}

namespace {

std::atomic<bool> g_cache_warned{false};

double millis_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool log_enabled() {
  const char *s = std::getenv("KILN_JIT_LOG");
  return s && *s && std::strcmp(s, "0") != 0;
}

void log_line(const std::string &text) {
  if (!log_enabled()) return;
  jit_message("kiln-jit: " + text);
}

// The cache's single warning per process (docs/jit.md: anything the cache cannot
// safely do means in-memory compiles with one warning).
void warn_once(const std::string &text) {
  if (g_cache_warned.exchange(true)) return;
  jit_message("warning: " + text);
}

// Closes a descriptor at scope exit, on every path (including an interrupt
// thrown while waiting for the lock).
struct Fd {
  int fd = -1;
  explicit Fd(int f = -1) : fd(f) {}
  ~Fd() { reset(); }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  Fd(Fd &&o) noexcept : fd(o.fd) { o.fd = -1; }
  void reset(int f = -1) {
    if (fd >= 0) close(fd);
    fd = f;
  }
};

// mkdir -p with mode 0700 for every component it creates; true when `dir`
// exists as a directory afterwards.
bool make_dirs(const std::string &dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
  size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0 && !make_dirs(dir.substr(0, slash))) return false;
  return mkdir(dir.c_str(), 0700) == 0 || (stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
}

void put_u32(std::string &s, uint32_t v) {
  for (int i = 0; i < 4; i++) s += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put_u64(std::string &s, uint64_t v) {
  for (int i = 0; i < 8; i++) s += static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t get_le(const char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

constexpr char kEntryMagic[8] = {'K', 'I', 'L', 'N', 'K', 'E', 'R', 'N'};
// Kernels are tens of kilobytes; a larger file is not one (and is not read).
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;
constexpr uint64_t kChecksumBasis = 0xcbf29ce484222325ull;

// Reads the whole file (size known from fstat); false on a short read.
bool read_all(int fd, std::string &bytes, size_t size) {
  bytes.resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, bytes.data() + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

bool write_all(int fd, const std::string &bytes, off_t at) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = pwrite(fd, bytes.data() + done, bytes.size() - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

using AbiFn = int (*)();
using KeyFn = const char *(*)();

// Names "/proc/self/fd/N" already given to dlopen. The dynamic loader finds a
// loaded object by the name it was opened under before it opens anything, so a
// later dlopen of the same name (the descriptor number reused for another
// entry) would return the old kernel: such numbers are never used again.
std::mutex g_fd_names_mutex;
std::set<int> g_fd_names_used;

// dlopens the checked entry open as `fd` through /proc/self/fd, so the file
// loaded is the one whose descriptor was checked (no path is resolved again),
// and returns the kernel entry after its exported identity matches too.
void *load_by_fd(int fd, const std::string &key_text, std::string &why) {
  std::lock_guard<std::mutex> guard(g_fd_names_mutex);
  std::vector<Fd> dups;  // hold numbers already used as names until a fresh one is found
  int use = fd;
  while (g_fd_names_used.count(use)) {
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (d < 0) {
      why = std::string("cannot duplicate the entry's descriptor: ") + std::strerror(errno);
      return nullptr;
    }
    dups.emplace_back(d);
    use = d;
  }
  std::string name = "/proc/self/fd/" + std::to_string(use);
  void *h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    why = e ? e : "dlopen failed";
    return nullptr;
  }
  g_fd_names_used.insert(use);
  auto abi = reinterpret_cast<AbiFn>(dlsym(h, "kiln_kernel_abi"));
  auto key = reinterpret_cast<KeyFn>(dlsym(h, "kiln_kernel_key"));
  void *fn = dlsym(h, "kiln_kernel");
  if (!abi || !key || !fn) {
    why = "not a Kiln kernel";
  } else if (abi() != kKernelAbi) {
    why = "kernel ABI " + std::to_string(abi()) + ", expected " + std::to_string(kKernelAbi);
  } else if (key_text != key()) {
    why = "compiled for another key";
  } else {
    return fn;
  }
  dlclose(h);
  return nullptr;
}

bool proc_fd_available() {
  static const bool ok = access("/proc/self/fd", X_OK) == 0;
  return ok;
}

void dump_source(gcc_jit_context *ctx, const std::string &name, const std::string &hash) {
  const char *dir = std::getenv("KILN_JIT_DUMP");
  if (!dir || !*dir || !make_dirs(dir)) return;
  std::string safe;
  for (char ch : name)
    safe += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') ? ch : '_';
  std::string path = std::string(dir) + "/" + safe + "-" + hash.substr(0, 16) + ".c";
  gcc_jit_context_dump_to_file(ctx, path.c_str(), 0);
}

// Takes the kernel's lock: an exclusive OFD lock on one byte of the directory's
// lock file, at an offset taken from the hash, so different kernels almost never
// wait for each other. Polls rather than blocks so Ctrl-C still interrupts the
// wait. Returns the lock file's descriptor (closing it releases the lock), or -1
// when there is no lock to take (the file cannot be created: then the directory
// is not writable and nothing is written anyway). Sets *waited when another
// process held it.
int take_lock(int dirfd, const std::string &hash, bool *waited) {
  *waited = false;
  Fd lf(openat(dirfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (lf.fd < 0) return -1;
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(std::strtoull(hash.substr(0, 12).c_str(), nullptr, 16));
  fl.l_len = 1;
  while (fcntl(lf.fd, F_OFD_SETLK, &fl) != 0) {
    if (errno != EAGAIN && errno != EACCES && errno != EINTR) return -1;  // no locking on this file system
    *waited = true;
    // throws; lf closes. A background compile waits on (nothing waits for it).
    if (g_interrupt && !jit_on_background_thread()) check_interrupt();
    usleep(5000);
  }
  int fd = lf.fd;
  lf.fd = -1;
  return fd;
}

std::string mode_text(mode_t m) { return fmt::format("{:04o}", unsigned(m & 07777)); }

// Why a directory or entry is not the current user's alone, or "".
std::string ownership_problem(const struct stat &st) {
  if (st.st_uid != geteuid())
    return fmt::format("owned by uid {}, but Kiln runs as uid {}", unsigned(st.st_uid), unsigned(geteuid()));
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return "writable by group or others (mode " + mode_text(st.st_mode) + ")";
  return "";
}

std::atomic<unsigned> g_tmp_counter{0};

// The interpreter thread waits for the background thread's compile to end,
// answering Ctrl-C meanwhile (nothing of this compile has started yet).
std::unique_lock<std::mutex> take_compile_turn() {
  static auto *m = new std::mutex;  // never destroyed: used until the process ends
  std::unique_lock<std::mutex> lock(*m, std::defer_lock);
  if (jit_on_background_thread()) {
    lock.lock();
    return lock;
  }
  while (!lock.try_lock()) {
    if (g_interrupt) check_interrupt();
    usleep(2000);
  }
  return lock;
}

}  // namespace

int open_cache_dir(const std::string &dir, std::string &why, bool *unsafe) {
  *unsafe = false;
  if (!make_dirs(dir)) {
    why = "cannot be created";
    return -1;
  }
  Fd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.fd < 0) {
    why = std::string("cannot be opened: ") + std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd.fd, &st) != 0) {
    why = std::string("cannot be examined: ") + std::strerror(errno);
    return -1;
  }
  why = ownership_problem(st);
  if (!why.empty()) {
    *unsafe = true;
    return -1;
  }
  int out = fd.fd;
  fd.fd = -1;
  return out;
}

std::string kernel_cache_problem(const std::string &dir) {
  std::string why;
  bool unsafe = false;
  Fd dfd(open_cache_dir(dir, why, &unsafe));
  if (dfd.fd < 0) return (unsafe ? "not safe: " : "") + why;
  if (!proc_fd_available()) return "/proc/self/fd is not available to load kernels by descriptor";
  std::string probe = ".probe." + std::to_string(getpid());
  Fd p(openat(dfd.fd, probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (p.fd < 0) return std::string("not writable: ") + std::strerror(errno);
  unlinkat(dfd.fd, probe.c_str(), 0);
  return "";
}

std::string cache_entry_suffix(const std::string &shared_object, const std::string &key_text) {
  std::string s = key_text;
  s.append(kEntryMagic, sizeof kEntryMagic);
  put_u32(s, uint32_t(kKernelAbi));
  put_u32(s, 0);
  put_u64(s, shared_object.size());
  put_u64(s, key_text.size());
  put_u64(s, fnv1a(key_text, fnv1a(shared_object, kChecksumBasis)));
  return s;
}

EntryState check_cache_entry(int fd, const std::string &key_text, std::string &why) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    why = std::string("cannot be examined: ") + std::strerror(errno);
    return EntryState::Damaged;
  }
  if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
    return EntryState::Unsafe;
  }
  why = ownership_problem(st);
  if (!why.empty()) return EntryState::Unsafe;
  uint64_t size = uint64_t(st.st_size);
  if (size < kEntryTrailerSize + 4) {
    why = fmt::format("{} bytes, too short for an entry", size);
    return EntryState::Damaged;
  }
  if (size > kMaxEntryBytes) {
    why = fmt::format("{} bytes, too large for an entry", size);
    return EntryState::Damaged;
  }
  std::string bytes;
  if (!read_all(fd, bytes, size_t(size))) {
    why = "cannot be read in full";
    return EntryState::Damaged;
  }
  const char *t = bytes.data() + size - kEntryTrailerSize;
  if (std::memcmp(t, kEntryMagic, sizeof kEntryMagic) != 0) {
    why = "no entry trailer (truncated, or not written by this version of Kiln)";
    return EntryState::Damaged;
  }
  uint64_t abi = get_le(t + 8, 4), so_size = get_le(t + 16, 8), key_size = get_le(t + 24, 8),
           sum = get_le(t + 32, 8);
  if (abi != uint64_t(kKernelAbi)) {
    why = fmt::format("kernel ABI {}, expected {}", abi, kKernelAbi);
    return EntryState::Damaged;
  }
  uint64_t body = size - kEntryTrailerSize;
  if (so_size > body || key_size != body - so_size) {
    why = fmt::format("{} bytes, but its trailer records {} + {} + {}", size, so_size, key_size,
                      kEntryTrailerSize);
    return EntryState::Damaged;
  }
  if (key_size != key_text.size() || std::memcmp(bytes.data() + so_size, key_text.data(), key_size) != 0) {
    why = "compiled for another key";
    return EntryState::Damaged;
  }
  if (fnv1a(bytes.data(), size_t(body), kChecksumBasis) != sum) {
    why = "checksum mismatch";
    return EntryState::Damaged;
  }
  if (so_size < 4 || std::memcmp(bytes.data(),
                                 "\x7f"
                                 "ELF",
                                 4) != 0) {
    why = "not a shared object";
    return EntryState::Damaged;
  }
  return EntryState::Valid;
}

EntryState open_cache_entry(int dirfd, const std::string &file, const std::string &key_text, int *fd_out,
                            std::string &why) {
  *fd_out = -1;
  // O_NONBLOCK: a FIFO put in place of an entry must not block the open.
  Fd fd(openat(dirfd, file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.fd < 0) {
    if (errno == ENOENT) return EntryState::Missing;
    if (errno == ELOOP) {
      why = "a symbolic link";
      return EntryState::Unsafe;
    }
    why = std::string("cannot be opened: ") + std::strerror(errno);
    return EntryState::Damaged;
  }
  EntryState s = check_cache_entry(fd.fd, key_text, why);
  if (s == EntryState::Valid) {
    *fd_out = fd.fd;
    fd.fd = -1;
  }
  return s;
}

void reset_cache_warning_for_tests() { g_cache_warned = false; }

namespace {

// Builds the kernel's context: the graph, its identity functions. Null with
// `failure` set when libgccjit recorded misuse of its API.
gcc_jit_context *build_context(const std::string &key_text, void (*build)(gcc_jit_context *, void *),
                               void *data, std::string &failure) {
  gcc_jit_context *ctx = jit_new_context();
  build(ctx, data);
  emit_kernel_identity(ctx, key_text);
  // libgccjit records misuse of its API (a type mismatch, an unterminated block)
  // as the context's first error; report it as such rather than as a compile failure.
  if (const char *err = gcc_jit_context_get_first_error(ctx)) {
    failure = std::string("code generation error: ") + err;
    gcc_jit_context_release(ctx);
    return nullptr;
  }
  return ctx;
}

// Compiles `ctx` into the cache directory `dirfd` as `file`: a temporary name
// unique to this process, the entry trailer appended, fsync, rename. Returns the
// entry's open descriptor (>= 0); -1 with `failure` when libgccjit failed
// (compiling in memory would fail the same way); -2 with `failure` when the
// cache could not be written (then compile in memory).
int compile_into_cache(const std::string &kernel_name, gcc_jit_context *ctx, int dirfd,
                       const std::string &file, const std::string &hash, const std::string &key_text,
                       std::string &failure) {
  std::string tmp;
  Fd tfd;
  for (int attempt = 0; attempt < 100 && tfd.fd < 0; attempt++) {
    tmp = "." + hash + ".tmp." + std::to_string(getpid()) + "." + std::to_string(g_tmp_counter++) + ".so";
    tfd.reset(openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (tfd.fd < 0 && errno != EEXIST) break;
  }
  if (tfd.fd < 0) {
    failure = std::string("not writable: ") + std::strerror(errno);
    return -2;
  }
  tfd.reset();
  // The output path goes through the checked directory's descriptor, not its
  // name, so the file is written where the entry will be looked for.
  std::string out_path = "/proc/self/fd/" + std::to_string(dirfd) + "/" + tmp;
  StderrCapture cap;
  struct ToFile {
    gcc_jit_context *ctx;
    const char *path;
  } job{ctx, out_path.c_str()};
  run_uninterruptible(
      kernel_name, &cap,
      [](void *p) {
        auto *j = static_cast<ToFile *>(p);
        gcc_jit_context_compile_to_file(j->ctx, GCC_JIT_OUTPUT_KIND_DYNAMIC_LIBRARY, j->path);
      },
      &job, [&] { unlinkat(dirfd, tmp.c_str(), 0); });
  std::string printed = cap.end();
  if (jit_time_report()) jit_message(printed);
  if (gcc_jit_context_get_first_error(ctx)) {
    failure = jit_failure_reason(ctx, printed);
    if (jit_on_background_thread() && !jit_time_report()) jit_pass_through(printed, failure);
    unlinkat(dirfd, tmp.c_str(), 0);
    return -1;
  }
  if (jit_on_background_thread() && !jit_time_report()) jit_pass_through(printed, "");
  auto io_failure = [&](const std::string &what) {
    failure = "cannot write cache entry " + tmp + ": " + what + ": " + std::strerror(errno);
    unlinkat(dirfd, tmp.c_str(), 0);
    return -2;
  };
  tfd.reset(openat(dirfd, tmp.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC));
  if (tfd.fd < 0) return io_failure("open");
  struct stat st;
  if (fstat(tfd.fd, &st) != 0 || !S_ISREG(st.st_mode)) return io_failure("stat");
  std::string so;
  if (!read_all(tfd.fd, so, size_t(st.st_size))) return io_failure("read");
  // The linker gives the file 0777 & ~umask; an entry needs no more than 0600.
  if (fchmod(tfd.fd, 0600) != 0) return io_failure("chmod");
  if (!write_all(tfd.fd, cache_entry_suffix(so, key_text), st.st_size)) return io_failure("write");
  if (fsync(tfd.fd) != 0) return io_failure("fsync");
  if (renameat(dirfd, tmp.c_str(), dirfd, file.c_str()) != 0) return io_failure("rename");
  fsync(dirfd);  // the rename itself durable; a failure here loses nothing already loaded
  int fd = tfd.fd;
  tfd.fd = -1;
  return fd;
}

}  // namespace

CompiledCode compile_cached(const std::string &name, const std::string &key_text,
                            void (*build)(gcc_jit_context *ctx, void *data), void *data) {
  auto t0 = std::chrono::steady_clock::now();
  CompiledCode out;
  std::string hash = kernel_key_hash(key_text);
  std::string dir = kernel_cache_dir();
  std::string file = hash + ".so";
  Fd dirfd;
  if (!dir.empty()) {
    std::string why;
    bool unsafe = false;
    dirfd.reset(open_cache_dir(dir, why, &unsafe));
    if (dirfd.fd < 0) {
      warn_once(unsafe ? "kernel cache directory " + dir + " is not safe to use (" + why +
                             "); compiling kernels in memory"
                       : "kernel cache directory " + dir + " is not writable; compiling kernels in memory");
    } else if (!proc_fd_available()) {
      warn_once("kernel cache directory " + dir +
                " cannot be used: /proc/self/fd is not available to load kernels by descriptor; compiling "
                "kernels in memory");
      dirfd.reset();
    }
  }

  // A hit: the entry passed every check on the descriptor that is loaded.
  // `again`: the look under the lock, after the first found nothing usable.
  auto try_hit = [&](bool again, bool waited) -> bool {
    std::string why;
    int efd = -1;
    EntryState s = open_cache_entry(dirfd.fd, file, key_text, &efd, why);
    Fd entry(efd);
    if (s == EntryState::Valid) {
      if (void *fn = load_by_fd(entry.fd, key_text, why)) {
        if (std::getenv("KILN_JIT_DUMP")) {  // the source is wanted even when the code is cached
          std::string ignored;
          if (gcc_jit_context *ctx = build_context(key_text, build, data, ignored)) {
            dump_source(ctx, name, hash);
            gcc_jit_context_release(ctx);
          }
        }
        out.fn = fn;
        out.cache_hit = true;
        out.path = dir + "/" + file;
        out.millis = millis_since(t0);
        log_line(name + ": cache hit " + hash + (waited ? " after waiting for another process" : "") + " (" +
                 fmt::format("{:.1f}", out.millis) + " ms)");
        return true;
      }
      s = EntryState::Damaged;
    }
    if (s == EntryState::Unsafe) {
      log_line(name + ": cache entry " + hash + " is not safe to use (" + why + "); compiling in memory");
      warn_once("kernel cache entry " + dir + "/" + file + " is not safe to use (" + why +
                "); compiling it in memory");
      dirfd.reset();
    } else if (s == EntryState::Damaged && !again) {
      log_line(name + ": cache entry " + hash + " is damaged or foreign (" + why + "); recompiling");
    }
    return false;
  };

  Fd lock;
  bool waited = false;
  if (dirfd.fd >= 0 && try_hit(false, false)) return out;
  if (dirfd.fd >= 0) {
    lock.reset(take_lock(dirfd.fd, hash, &waited));
    // Look again under the lock: another process may have just written it.
    if (dirfd.fd >= 0 && try_hit(true, waited)) return out;
  }

  // One compile at a time in the process: each redirects fd 2 while the driver
  // runs, and libgccjit compiles one context at a time anyway.
  std::unique_lock<std::mutex> turn = take_compile_turn();
  gcc_jit_context *ctx =
      jit_make_compile_tmpdir(out.failure) ? build_context(key_text, build, data, out.failure) : nullptr;
  if (!ctx) {
    out.millis = millis_since(t0);
    log_line(name + ": compile failed (" + out.failure + ")");
    return out;
  }
  dump_source(ctx, name, hash);

  bool done = false;  // loaded from the cache, or failed in a way compiling in memory would too
  if (dirfd.fd >= 0) {
    std::string failure;
    Fd entry(compile_into_cache(name, ctx, dirfd.fd, file, hash, key_text, failure));
    if (entry.fd == -1) {
      out.failure = failure;
      done = true;
    } else if (entry.fd == -2) {
      entry.fd = -1;
      if (failure.rfind("not writable", 0) == 0)
        warn_once("kernel cache directory " + dir + " is not writable; compiling kernels in memory");
      else warn_once(failure + "; compiling kernels in memory");
    } else {
      std::string why;
      if (check_cache_entry(entry.fd, key_text, why) == EntryState::Valid)
        out.fn = load_by_fd(entry.fd, key_text, why);
      if (out.fn) {
        out.path = dir + "/" + file;
        done = true;
      } else {
        warn_once("the kernel cache entry just written to " + dir + " does not load (" + why +
                  "); compiling kernels in memory");
      }
    }
  }
  lock.reset();  // the entry is in place (or will not be): let waiting processes look

  if (!done) {
    out.in_memory = true;
    StderrCapture cap;
    struct InMemory {
      gcc_jit_context *ctx;
      gcc_jit_result *res;
    } job{ctx, nullptr};
    run_uninterruptible(
        name, &cap,
        [](void *p) {
          auto *j = static_cast<InMemory *>(p);
          j->res = gcc_jit_context_compile(j->ctx);
        },
        &job);
    gcc_jit_result *res = job.res;
    std::string printed = cap.end();
    if (jit_time_report()) jit_message(printed);
    if (!res) {
      out.failure = jit_failure_reason(ctx, printed);
      if (jit_on_background_thread() && !jit_time_report()) jit_pass_through(printed, out.failure);
    } else {
      if (jit_on_background_thread() && !jit_time_report()) jit_pass_through(printed, "");
      // The result stays loaded for the life of the process: kernels are not freed.
      out.fn = gcc_jit_result_get_code(res, "kiln_kernel");
      if (!out.fn) out.failure = "the compiled kernel has no entry point";
    }
  }
  gcc_jit_context_release(ctx);
  out.millis = millis_since(t0);
  if (out.fn)
    log_line(name + (out.in_memory ? ": compiled in memory " : ": cache miss ") + hash +
             (waited ? " after waiting for another process" : "") + ", compiled in " +
             fmt::format("{:.1f}", out.millis) + " ms");
  else log_line(name + ": compile failed (" + out.failure + ")");
  return out;
}

}  // namespace kiln

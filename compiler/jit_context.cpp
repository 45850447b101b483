// jit_context.cpp — CPU level, flags, context creation, stderr capture.
#include "compiler/jit_context.h"

#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/eval.h"
#include "runtime/gc.h"
#include "runtime/port.h"

namespace kiln {

static int detect_cpu_level() {
  __builtin_cpu_init();
  int level = 1;
  if (__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt")) level = 2;
  if (level == 2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi2"))
    level = 3;
  if (level == 3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    level = 4;
  if (const char *s = std::getenv("KILN_JIT_LEVEL")) {
    int want = std::atoi(s);
    if (want >= 1 && want < level) level = want;
  }
  return level;
}

int jit_cpu_level() {
  static const int level = detect_cpu_level();
  return level;
}

const char *jit_march() {
  static const char *const names[] = {"x86-64", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};
  return names[jit_cpu_level()];
}

int jit_vector_doubles() {
  switch (jit_cpu_level()) {
  case 4: return 8;
  case 3: return 4;
  default: return 2;
  }
}

const std::vector<std::string> &jit_flags() {
  // -fno-tree-slp-vectorize: GCC 12's basic-block (SLP) vectoriser miscompiles the
  // short strided copies of slice/concat lowerings at AVX-512 width (docs/jit.md,
  // "Known GCC defects"); the kernels' hot loops are vectorised explicitly or by
  // the loop vectoriser, which stays on.
  static const std::vector<std::string> flags = {"-O3", "-ffp-contract=off", "-fno-tree-slp-vectorize",
                                                 std::string("-march=") + jit_march()};
  return flags;
}

const std::vector<std::string> &jit_link_flags() {
  static const std::vector<std::string> flags = {"-lm"};
  return flags;
}

std::string jit_version_string() {
  return std::to_string(gcc_jit_version_major()) + "." + std::to_string(gcc_jit_version_minor()) + "." +
         std::to_string(gcc_jit_version_patchlevel());
}

gcc_jit_context *jit_new_context() {
  gcc_jit_context *ctx = gcc_jit_context_acquire();
  gcc_jit_context_set_bool_print_errors_to_stderr(ctx, 0);
  gcc_jit_context_set_bool_use_external_driver(ctx, 1);
  // -O3 is given as a flag (below) rather than through the int option so the
  // flags list alone says how a kernel was built.
  for (const std::string &f : jit_flags()) gcc_jit_context_add_command_line_option(ctx, f.c_str());
  for (const std::string &f : jit_link_flags()) gcc_jit_context_add_driver_option(ctx, f.c_str());
  if (jit_time_report()) gcc_jit_context_add_command_line_option(ctx, "-ftime-report");
  return ctx;
}

bool jit_time_report() {
  static const bool on = [] {
    const char *s = std::getenv("KILN_JIT_TIME_REPORT");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  return on;
}

namespace {
thread_local bool t_background = false;
// Heap-owned, never destroyed: the background thread may still use them while
// the process exits.
std::mutex &message_mutex() {
  static auto *m = new std::mutex;
  return *m;
}
std::vector<std::string> &queued_messages() {
  static auto *q = new std::vector<std::string>;
  return *q;
}
std::atomic<bool> g_messages_queued{false};
std::function<void()> *g_abandon_cleanup = nullptr;  // guarded by message_mutex()
StderrCapture *g_background_capture = nullptr;       // guarded by message_mutex()
// What a background capture held when it ended, until jit_pass_through writes it
// out: an exit in between (jit_abandon_compile) writes it instead, so the
// program's own last stderr lines are never lost. Guarded by message_mutex().
std::string *g_unpassed = nullptr;
// Set once an exit has handed the background capture over: from then on fd 2
// stays on the capture for good (see jit_abandon_compile). Guarded by message_mutex().
bool g_handed_over = false;
// The status an exit path ends the process with, set before it removes the compile
// directory under a running compile (-1: no such exit under way).
std::atomic<int> g_ending_status{-1};
// The kernel this thread is compiling, and its capture, while `work` runs.
thread_local const std::string *t_compiling_kernel = nullptr;
thread_local StderrCapture *t_compile_capture = nullptr;
}  // namespace

namespace {
// The one redirection of fd 2 that every active StderrCapture shares. Guarded by
// message_mutex().
struct SharedRedirection {
  int users = 0;
  int saved_fd = -1;  // the real fd 2
  int tmp_fd = -1;    // the unlinked file fd 2 points at meanwhile
};
SharedRedirection g_redirection;

std::string read_from(int fd, long at) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while (text.size() < 65536 && (n = pread(fd, buf, sizeof buf, at)) > 0) {
    text.append(buf, size_t(n));
    at += n;
  }
  return text;
}
}  // namespace

StderrCapture::StderrCapture() {
  std::fflush(stderr);
  // The redirection and a background capture's registration happen in one critical
  // section: an exit between the two would find fd 2 on a capture nobody hands
  // over, and the program's last stderr lines would vanish with the process.
  std::lock_guard<std::mutex> lock(message_mutex());
  SharedRedirection &r = g_redirection;
  if (r.users == 0) {
    char path[] = "/tmp/kiln-jit-stderr-XXXXXX";
    int tmp = mkstemp(path);
    if (tmp < 0) return;  // nothing captured; the back-end writes where it always does
    unlink(path);
    int saved = dup(2);
    if (saved < 0 || dup2(tmp, 2) < 0) {
      if (saved >= 0) close(saved);
      close(tmp);
      return;
    }
    r.saved_fd = saved;
    r.tmp_fd = tmp;
  }
  struct stat st;
  start_ = fstat(r.tmp_fd, &st) == 0 ? long(st.st_size) : 0;
  r.users++;
  active_ = true;
  if (t_background) g_background_capture = this;
}

std::string StderrCapture::end() {
  std::lock_guard<std::mutex> lock(message_mutex());
  if (!active_ || g_handed_over) return "";  // the process is ending (jit_abandon_compile)
  if (g_background_capture == this) g_background_capture = nullptr;
  std::string text = end_locked();
  if (t_background && !jit_time_report()) {
    if (!g_unpassed) g_unpassed = new std::string;
    *g_unpassed = text;
  }
  return text;
}

std::string StderrCapture::end_locked() {
  std::fflush(stderr);
  SharedRedirection &r = g_redirection;
  std::string text = read_from(r.tmp_fd, start_);
  active_ = false;
  if (--r.users == 0) {
    dup2(r.saved_fd, 2);
    close(r.saved_fd);
    close(r.tmp_fd);
    r.saved_fd = r.tmp_fd = -1;
  }
  return text;
}

StderrCapture::~StderrCapture() {
  if (active_) end();
}

namespace {
bool stderr_captured() {
  std::lock_guard<std::mutex> lock(message_mutex());
  return g_redirection.users > 0;
}
}  // namespace

void jit_write_real_stderr(const std::string &line) {
  std::lock_guard<std::mutex> lock(message_mutex());
  std::string text = line + "\n";
  (void)!write(g_redirection.users > 0 ? g_redirection.saved_fd : 2, text.data(), text.size());
}

static int scan_library_roots(const char *library, void *, size_t) {
  // Every other library's writable segments stay roots, as Boehm's default.
  return library == nullptr || std::strstr(library, "libgccjit") == nullptr;
}

void jit_exclude_from_gc_roots() { GC_register_has_static_roots_callback(scan_library_roots); }

void jit_mark_background_thread() { t_background = true; }
bool jit_on_background_thread() { return t_background; }

namespace {
void remove_compile_tmpdir();
void remove_compile_tmpdir_after_exit();
}  // namespace

// For an exit during a background compile: what the capture holds is written to
// the real stderr, but fd 2 stays on the capture. The compile thread goes on until
// the process ends and may still start the gcc driver, which inherits fd 2: once
// the compile directory is removed under it, it fails ("compilation terminated."),
// and that must not reach the user's stderr. pread leaves the shared offset alone,
// so a driver's late write cannot land over the held text.
void StderrCapture::hand_over_for_exit() {
  if (!active_ || g_redirection.tmp_fd < 0) return;
  std::fflush(stderr);
  // pread and write only: the SIGABRT handler calls this too.
  char buf[4096];
  off_t at = start_;
  ssize_t n;
  while ((n = pread(g_redirection.tmp_fd, buf, sizeof buf, at)) > 0) {
    (void)!write(g_redirection.saved_fd, buf, size_t(n));
    at += n;
  }
}

void jit_abandon_compile(int status) {
  g_ending_status.store(status);  // before the compile directory goes (end_for_compiler_exit)
  std::lock_guard<std::mutex> lock(message_mutex());
  if (g_background_capture) {
    g_background_capture->hand_over_for_exit();
    g_background_capture = nullptr;
    g_handed_over = true;
  } else if (g_unpassed && !g_unpassed->empty()) {
    (void)!write(2, g_unpassed->data(), g_unpassed->size());
    g_unpassed->clear();
  }
  if (g_abandon_cleanup && *g_abandon_cleanup) (*g_abandon_cleanup)();
  remove_compile_tmpdir_after_exit();  // the process ends by _Exit, past atexit
}

void jit_pass_through(const std::string &captured, const std::string &reason) {
  std::lock_guard<std::mutex> lock(message_mutex());
  if (!g_unpassed || g_unpassed->empty()) return;  // nothing held, or an exit wrote it
  g_unpassed->clear();
  std::string out;
  size_t pos = 0;
  while (pos < captured.size()) {
    size_t nl = captured.find('\n', pos);
    size_t end = nl == std::string::npos ? captured.size() : nl + 1;
    std::string line = captured.substr(pos, end - pos);
    pos = end;
    std::string bare = line.back() == '\n' ? line.substr(0, line.size() - 1) : line;
    if (!reason.empty() && (bare == reason || bare == "compilation terminated.")) continue;
    out += line;
  }
  if (!out.empty()) (void)!write(2, out.data(), out.size());
}

// libgccjit compiles in a directory libgccjit-XXXXXX that it makes in the
// temporary directory libiberty picks once per process (TMPDIR, else /tmp) and
// removes when the compile ends. A compile abandoned on Ctrl-C or exit (the
// process ends under it) would leave that directory behind, so TMPDIR names a
// directory of this process's own, which exit and the interrupt path remove with
// all it holds. TMPDIR is set once at start-up, before any thread exists: setenv
// while another thread runs the gcc driver (which reads the environment) is a
// data race. The directory itself is made at the first compile.
namespace {

std::string g_compile_tmpdir;  // empty when compiles use the user's TMPDIR
bool g_compile_tmpdir_made = false;
bool g_user_tmpdir_set = false;
std::string g_user_tmpdir;
std::mutex g_compile_tmpdir_mutex;

int remove_entry(const char *path, const struct stat *, int type, struct FTW *) {
  if (type == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;
}

// Renamed first: the abandoned compile (and the assembler it may be running)
// names its files by their old paths, so it cannot add one while they go.
void remove_compile_tmpdir() {
  if (!g_compile_tmpdir_made) return;
  std::string gone = g_compile_tmpdir + ".gone";
  const std::string &tree = rename(g_compile_tmpdir.c_str(), gone.c_str()) == 0 ? gone : g_compile_tmpdir;
  nftw(tree.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

// For an exit while a compile runs. GCC runs inside this process, and when its
// directory goes under it, it ends the process itself, with exit(1) or abort(),
// racing the exit's own _Exit: under load, programs ended with status 1 or 134 and
// no message. So the directory is removed by a small process that outlives this
// one: a shell that reads a pipe whose only writer is this process (the writing
// end is close-on-exec, so no gcc driver holds it), and removes the directory after
// the pipe's end of file, which is this process's end, and after the orphaned
// driver's (which would otherwise crash on it). Removed here when the shell cannot
// be started.
void remove_compile_tmpdir_after_exit() {
  // Whether or not the directory is made yet: the compile thread may make it between
  // this check and the process's end (tiering.sh found it left behind so).
  if (g_compile_tmpdir.empty()) return;
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) {
    remove_compile_tmpdir();
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, ends[0], 3);
  posix_spawn_file_actions_addclosefrom_np(&actions, 4);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  // Its own session: a second Ctrl-C at the terminal must not stop the removal.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
  // After this process, the gcc driver and what it runs (as, ld) may still be at
  // work in the directory: it goes once no other process names it in its command
  // line (at most 30 s later). $2 is the directory's name with its first letter in
  // brackets, so the pattern never matches the grep's own command line.
  const char *script =
      "read -r line <&3; n=0; "
      "while [ $n -lt 600 ] && grep -ls -- \"$2\" /proc/[0-9]*/cmdline | grep -v \"^/proc/$$/\" >/dev/null; "
      "do sleep 0.05; n=$((n + 1)); done; exec rm -rf -- \"$1\"";
  std::string dir = g_compile_tmpdir;
  std::string name = dir.substr(dir.rfind('/') + 1);  // kiln-jit-PID-HEX: letters, digits, dashes
  std::string pattern(1, '[');
  pattern += name[0];
  pattern += ']';
  pattern.append(name, 1, std::string::npos);
  char *argv[] = {const_cast<char *>("kiln-jit-cleanup"),
                  const_cast<char *>("-c"),
                  const_cast<char *>(script),
                  const_cast<char *>("kiln-jit-cleanup"),
                  dir.data(),
                  pattern.data(),
                  nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(ends[0]);
  if (rc != 0) {
    close(ends[1]);
    remove_compile_tmpdir();
    return;
  }
  // ends[1] stays open until the process ends.
}

}  // namespace

void jit_use_private_tmpdir() {
  const char *user = std::getenv("TMPDIR");
  g_user_tmpdir_set = user != nullptr;
  if (user) g_user_tmpdir = user;
  // libiberty's own order, so a TMPDIR that is not a usable directory falls back
  // as it would without this.
  const char *parent = nullptr;
  const char *candidates[] = {user, std::getenv("TMP"), std::getenv("TEMP"), "/tmp", "/var/tmp", "/usr/tmp"};
  for (const char *c : candidates) {
    struct stat st;
    if (c && *c && stat(c, &st) == 0 && S_ISDIR(st.st_mode) && access(c, W_OK | X_OK) == 0) {
      parent = c;
      break;
    }
  }
  if (!parent) return;
  uint64_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != ssize_t(sizeof r))
    r = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9e3779b97f4a7c15ull;
  char name[64];
  std::snprintf(name, sizeof name, "/kiln-jit-%d-%016llx", int(getpid()), static_cast<unsigned long long>(r));
  g_compile_tmpdir = std::string(parent) + name;
  setenv("TMPDIR", g_compile_tmpdir.c_str(), 1);
  std::atexit(remove_compile_tmpdir);
}

bool jit_make_compile_tmpdir(std::string &failure) {
  std::lock_guard<std::mutex> lock(g_compile_tmpdir_mutex);
  if (g_compile_tmpdir.empty() || g_compile_tmpdir_made) return true;
  // mkdir, not "exists": a directory someone else made under this name is not ours.
  if (mkdir(g_compile_tmpdir.c_str(), 0700) != 0) {
    failure = "cannot make the compile directory " + g_compile_tmpdir + ": " + std::strerror(errno);
    return false;
  }
  g_compile_tmpdir_made = true;
  return true;
}

const char *user_environment_tmpdir(bool *changed) {
  *changed = !g_compile_tmpdir.empty();
  return g_user_tmpdir_set ? g_user_tmpdir.c_str() : nullptr;
}

namespace {
// GCC is ending the process from the compiling thread (exit() or abort()). During an
// exit already under way on another thread, that thread ends it, with its status,
// once its clean-up is done; otherwise what GCC wrote goes out, then `what` and the
// kernel's name, and the status is 70 (GCC's state is gone, so kiln cannot go on).
// write, pread and _Exit only: the SIGABRT handler calls it.
[[noreturn]] void end_for_compiler(const char *what, const char *why) {
  if (g_ending_status.load() >= 0)
    for (;;) pause();
  if (t_compile_capture) t_compile_capture->hand_over_for_exit();
  int out = g_redirection.users > 0 ? g_redirection.saved_fd : 2;
  (void)!write(out, what, std::strlen(what));
  (void)!write(out, t_compiling_kernel->data(), t_compiling_kernel->size());
  (void)!write(out, why, std::strlen(why));
  std::_Exit(70);
}
}  // namespace

// An exit handler, so it runs on the thread that calls exit(): GCC's fatal_error
// does, from inside a compile, and its bare status 1 and message left in the
// capture were all a user saw.
void end_for_compiler_exit() {
  if (!t_compiling_kernel) return;                          // an ordinary exit
  if (g_ending_status.load() < 0) remove_compile_tmpdir();  // not signal-safe: here, not in end_for_compiler
  end_for_compiler("error: the compiler ended the process while compiling kernel ",
                   " (a fatal error in GCC, above; kiln cannot continue)\n");
}

struct sigaction g_abort_before;  // SIGABRT's disposition before the first compile

// GCC calls abort() on an internal error, and on some files of its directory gone
// (a temporary-file cleaner removing it mid-compile).
void on_compiler_abort(int sig) {
  if (!t_compiling_kernel) {  // not GCC's: as before the first compile
    sigaction(SIGABRT, &g_abort_before, nullptr);
    raise(sig);
    return;
  }
  end_for_compiler("error: the compiler crashed while compiling kernel ",
                   " (GCC aborted, above; kiln cannot continue)\n");
}

namespace {
// Runs `work` as this thread's compile of `kernel_name` (see end_for_compiler_exit).
void compile_watched(const std::string &kernel_name, StderrCapture *capture, void (*work)(void *),
                     void *data) {
  static std::once_flag registered;
  // Registered at the first compile, after remove_compile_tmpdir's handler, so it runs first.
  std::call_once(registered, [] {
    std::atexit(end_for_compiler_exit);
    struct sigaction on_abort {};
    on_abort.sa_handler = on_compiler_abort;
    sigemptyset(&on_abort.sa_mask);
    sigaction(SIGABRT, &on_abort, &g_abort_before);
  });
  t_compiling_kernel = &kernel_name;
  t_compile_capture = capture;
  work(data);
  t_compiling_kernel = nullptr;
  t_compile_capture = nullptr;
}
}  // namespace

void run_uninterruptible(const std::string &kernel_name, StderrCapture *capture, void (*work)(void *),
                         void *data, const std::function<void()> &before_exit) {
  if (t_background) {
    // Nothing waits for this compile, so nothing needs to be interrupted; an exit
    // meanwhile ends the process under it (jit_abandon_compile cleans up).
    {
      std::lock_guard<std::mutex> lock(message_mutex());
      g_abandon_cleanup = new std::function<void()>(before_exit);
    }
    compile_watched(kernel_name, capture, work, data);
    std::lock_guard<std::mutex> lock(message_mutex());
    delete g_abandon_cleanup;
    g_abandon_cleanup = nullptr;
    return;
  }
  struct Shared {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
  };
  // Heap-owned and never freed: on a Ctrl-C the process exits while the thread
  // still runs, and nothing may be destroyed under it before that.
  auto *shared = new Shared;
  std::thread worker([=, &kernel_name] {
    compile_watched(kernel_name, capture, work, data);
    std::lock_guard<std::mutex> lock(shared->m);
    shared->done = true;
    shared->cv.notify_one();
  });
  {
    std::unique_lock<std::mutex> lock(shared->m);
    while (!shared->done) {
      shared->cv.wait_for(lock, std::chrono::milliseconds(50));
      if (g_interrupt && !shared->done) {
        lock.unlock();
        g_ending_status.store(130);  // before anything of the compile is removed under it
        if (capture && capture->active()) capture->end();
        if (before_exit) before_exit();
        std::string message = "error: interrupted while compiling kernel " + kernel_name +
                              " (a compile cannot be stopped, so kiln exits)";
        if (stderr_captured()) {
          // A background compile still holds fd 2: its text goes out, then this line.
          std::fflush(stdout);
          jit_abandon_compile(130);
          jit_write_real_stderr(message);
        } else {
          remove_compile_tmpdir_after_exit();
          jit_message(message);
        }
        std::fflush(stdout);
        std::_Exit(130);
      }
    }
  }
  worker.join();
  delete shared;
}

void jit_message(const std::string &line) {
  if (t_background) {
    std::lock_guard<std::mutex> lock(message_mutex());
    queued_messages().push_back(line);
    g_messages_queued.store(true, std::memory_order_release);
    return;
  }
  Value port = current_error_port();
  if (is_port(port)) {
    port_write(as<Port>(port), line + "\n");
    port_flush(as<Port>(port));
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

void jit_drain_messages() {
  if (!g_messages_queued.load(std::memory_order_acquire)) return;
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lock(message_mutex());
    lines.swap(queued_messages());
    g_messages_queued.store(false, std::memory_order_relaxed);
  }
  for (const std::string &l : lines) jit_message(l);
}

std::string first_error_line(const std::string &text) {
  // The capture is of file descriptor 2, so it also holds what the program itself
  // wrote to stderr while a background compile ran: a line that names an error wins
  // over an earlier line that does not.
  std::string first, error, terminated;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    if (line == "compilation terminated.") {
      terminated = line;
      continue;
    }
    if (line.find("error") != std::string::npos) {
      error = line;
      break;
    }
    if (first.empty()) first = line;
  }
  return !error.empty() ? error : !first.empty() ? first : terminated;
}

std::string jit_failure_reason(gcc_jit_context *ctx, const std::string &captured) {
  std::string line = first_error_line(captured);
  if (line.find("error") != std::string::npos) return line;
  const char *err = ctx ? gcc_jit_context_get_first_error(ctx) : nullptr;
  if (err) return err;
  if (!line.empty()) return line;
  return "libgccjit failed without a message";
}

}  // namespace kiln

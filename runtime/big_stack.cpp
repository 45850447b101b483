// big_stack.cpp — see big_stack.h for why evaluation runs on its own thread.
#include "runtime/big_stack.h"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "runtime/eval_internal.h"
#include "runtime/gc.h"

namespace kiln {

constexpr size_t kMiB = size_t(1) << 20;
// Below the lowest address check_stack() allows, room to unwind and report.
constexpr size_t kOverflowMargin = 2 * kMiB;
// Inaccessible pages under the stack: running past it is a fault, never a
// write into whatever mapping lies below.
constexpr size_t kGuardBytes = 64 << 10;
// What release_deep_stack() leaves alone below the caller: ordinary calls
// reuse it, so giving it back would only make them fault it in again.
constexpr size_t kKeepBelow = 4 * kMiB;

size_t interpreter_stack_bytes(const char *env_mb, uint64_t usable_memory, uint64_t address_space) {
  if (env_mb) {
    char *end;
    long long mb = std::strtoll(env_mb, &end, 10);  // out of range: LLONG_MIN or LLONG_MAX
    if (end != env_mb) {
      // 2^26 MiB = 64 TiB: beyond any reservation, and no overflow in the shift.
      mb = std::clamp(mb, 16LL, 1LL << 26);
      return size_t(mb) * kMiB;
    }
  }
#if defined(__SANITIZE_ADDRESS__)
  // ASan unpoisons the stack on a throw only when the thrower is less than
  // 64 MiB deep; deeper, it warns and later reports false errors.
  (void)usable_memory;
  (void)address_space;
  return 60 * kMiB;
#else
  // No upper bound: a stack overflow or Ctrl-C at the bottom of millions of
  // frames leaves them by a jump (jump_unwind.h), not frame by frame, so a
  // deep stack costs only the recursion that fills it. Under an address-space
  // limit the reservation counts in full from the start, against every other
  // allocation (a tensor, GMP's numbers): an eighth of that limit.
  uint64_t budget = usable_memory / 4;
  if (address_space != 0) budget = std::min(budget, address_space / 8);
  return size_t(std::max<uint64_t>(budget / kMiB * kMiB, 128 * kMiB));
#endif
}

static uint64_t read_cgroup_limit(const char *path) {
  FILE *f = std::fopen(path, "r");
  if (!f) return 0;
  unsigned long long v = 0;
  int got = std::fscanf(f, "%llu", &v);  // "max" (no limit) reads as nothing
  std::fclose(f);
  return got == 1 ? v : 0;
}

uint64_t usable_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t mem = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
  for (const char *p : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"})
    if (uint64_t lim = read_cgroup_limit(p); lim != 0 && (mem == 0 || lim < mem)) mem = lim;
  // An address-space limit (ulimit -v) bounds what the process may use too.
  if (uint64_t as = address_space_limit_bytes(); as != 0 && (mem == 0 || as < mem)) mem = as;
  return mem;
}

uint64_t address_space_limit_bytes() {
  struct rlimit as;
  return getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY ? uint64_t(as.rlim_cur) : 0;
}

static void set_stack_limit_for_current_thread(size_t margin) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void *addr;
  size_t size;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0)
    g_stack_limit = reinterpret_cast<uintptr_t>(addr) + margin;
  pthread_attr_destroy(&attr);
}

// The reserved stack of this thread, if run_on_big_stack made it: [lo, hi).
static thread_local uintptr_t t_stack_lo = 0;

struct BigStackCall {
  int (*fn)(void *);
  void *arg;
  uintptr_t lo;
  int result;
};

static void *big_stack_main(void *p) {
  auto *call = static_cast<BigStackCall *>(p);
  set_stack_limit_for_current_thread(kOverflowMargin);
  t_stack_lo = call->lo;
  call->result = call->fn(call->arg);
  return nullptr;
}

// A mapping of `bytes` plus the guard, or nullptr. MAP_NORESERVE: the pages
// are not counted against memory until touched (where the system overcommits;
// where it does not, a size it refuses makes the caller try a smaller one).
static void *reserve_stack(size_t bytes) {
  void *m = mmap(nullptr, bytes + kGuardBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  if (mprotect(m, kGuardBytes, PROT_NONE) != 0) {
    munmap(m, bytes + kGuardBytes);
    return nullptr;
  }
  return m;
}

int run_on_big_stack(int (*fn)(void *), void *arg) {
  size_t bytes = interpreter_stack_bytes(std::getenv("KILN_STACK_MB"), usable_memory_bytes(),
                                         address_space_limit_bytes());
  size_t least = std::min(bytes, 128 * kMiB);
  void *mapping = nullptr;
  for (; bytes >= least; bytes /= 2)
    if ((mapping = reserve_stack(bytes))) break;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  BigStackCall call{fn, arg, 0, 0};
  if (mapping) {
    call.lo = reinterpret_cast<uintptr_t>(mapping) + kGuardBytes;
    pthread_attr_setstack(&attr, reinterpret_cast<void *>(call.lo), bytes);
  } else {
    pthread_attr_setstacksize(&attr, least);
  }
  pthread_t th;
  // gc.h (GC_THREADS) redirects pthread_create so the collector knows the thread.
  int made = pthread_create(&th, &attr, big_stack_main, &call);
  pthread_attr_destroy(&attr);
  if (made != 0) {
    if (mapping) munmap(mapping, bytes + kGuardBytes);
    set_stack_limit_for_current_thread(256u << 10);
    return fn(arg);
  }
  // While it waits, this thread is "blocked" for the collector: otherwise every
  // collection would stop it with a signal and wait for its reply, a wake-up
  // that cost most of a small collection (docs/performance.md, "Collector").
  GC_do_blocking(
      [](void *t) -> void * {
        pthread_join(*static_cast<pthread_t *>(t), nullptr);
        return nullptr;
      },
      &th);
  if (mapping) munmap(mapping, bytes + kGuardBytes);
  return call.result;
}

void init_stack_limit_for_main_thread() { set_stack_limit_for_current_thread(512u << 10); }

void release_deep_stack() {
  if (!t_stack_lo) return;
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (here < t_stack_lo + kKeepBelow + page) return;
  uintptr_t keep = (here - kKeepBelow) & ~(page - 1);
  // A recursion touches its stack from the top down without gaps, so if the
  // page under the kept part is not resident, nothing below it is: the usual
  // case, one system call.
  unsigned char resident = 0;
  if (mincore(reinterpret_cast<void *>(keep - page), page, &resident) != 0 || !(resident & 1)) return;
  madvise(reinterpret_cast<void *>(t_stack_lo), keep - t_stack_lo, MADV_DONTNEED);
}

}  // namespace kiln

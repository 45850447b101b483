// big_stack.cpp — see big_stack.h for why evaluation runs on its own thread.
#include "big_stack.h"

#include <pthread.h>

#include <algorithm>
#include <cstdlib>

#include "eval_internal.h"
#include "gc.h"

namespace kiln {

static void set_stack_limit_for_current_thread(size_t margin) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void *addr;
  size_t size;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0)
    g_stack_limit = reinterpret_cast<uintptr_t>(addr) + margin;
  pthread_attr_destroy(&attr);
}

struct BigStackCall {
  int (*fn)(void *);
  void *arg;
  int result;
};

static void *big_stack_main(void *p) {
  auto *call = static_cast<BigStackCall *>(p);
  set_stack_limit_for_current_thread(2u << 20);
  call->result = call->fn(call->arg);
  return nullptr;
}

int run_on_big_stack(int (*fn)(void *), void *arg) {
  BigStackCall call{fn, arg, 0};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
#if defined(__SANITIZE_ADDRESS__)
  // ASan unpoisons the stack on a throw only when the thrower is less than
  // 64 MiB deep; deeper, it warns and later reports false errors.
  size_t mb = 60;
#else
  size_t mb = 128;
#endif
  if (const char *s = std::getenv("KILN_STACK_MB")) mb = size_t(std::max(16L, std::strtol(s, nullptr, 10)));
  pthread_attr_setstacksize(&attr, mb << 20);
  pthread_t th;
  // gc.h (GC_THREADS) redirects pthread_create so the collector knows the thread.
  if (pthread_create(&th, &attr, big_stack_main, &call) != 0) {
    pthread_attr_destroy(&attr);
    set_stack_limit_for_current_thread(256u << 10);
    return fn(arg);
  }
  pthread_attr_destroy(&attr);
  // While it waits, this thread is "blocked" for the collector: otherwise every
  // collection would stop it with a signal and wait for its reply, a wake-up
  // that cost most of a small collection (docs/performance.md, "Collector").
  GC_do_blocking(
      [](void *t) -> void * {
        pthread_join(*static_cast<pthread_t *>(t), nullptr);
        return nullptr;
      },
      &th);
  return call.result;
}

void init_stack_limit_for_main_thread() { set_stack_limit_for_current_thread(512u << 10); }

}  // namespace kiln

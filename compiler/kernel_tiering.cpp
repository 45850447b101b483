// kernel_tiering.cpp — the background compile thread (see kernel_tiering.h).
#include "compiler/kernel_tiering.h"

#include <pthread.h>
#include <unistd.h>

#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>

#include "compiler/jit_context.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/gc.h"  // with GC_THREADS: pthread_create registers the thread

namespace kiln {

namespace {

// Heap-owned and never destroyed: the thread may still wait on them while the
// process exits normally.
struct Queue {
  std::mutex m;
  std::condition_variable wake;
  std::deque<BackgroundCompile *> jobs;
  bool started = false;
  bool busy = false;  // a job is being compiled
  // KILN_JIT_TEST_DELAY_MS: every background compile starts this much later, so a
  // test can rely on a compile still running (tests/jit/tiering.sh); read on the
  // interpreter thread before the compile thread starts (getenv is not safe beside setenv).
  long test_delay_ms = 0;
};
Queue &queue() {
  static auto *q = new Queue;
  return *q;
}

void *run_jobs(void *) {
  Queue &q = queue();
  for (;;) {
    BackgroundCompile *job;
    {
      std::unique_lock<std::mutex> lock(q.m);
      q.wake.wait(lock, [&] { return !q.jobs.empty(); });
      job = q.jobs.front();
      q.jobs.pop_front();
      q.busy = true;
    }
    if (q.test_delay_ms > 0) usleep(useconds_t(q.test_delay_ms) * 1000);
    try {
      job->code = compile_cached(job->name, job->key_text, job->build, job->data);
    } catch (...) {  // e.g. bad_alloc: this kernel stays with the interpreter
      job->code = CompiledCode{};
      job->code.failure = "internal error in the background compile";
    }
    if (!job->code.fn)
      jit_message("warning: kernel " + job->name + ": libgccjit could not compile it (" + job->code.failure +
                  "); using the graph interpreter");
    {
      std::lock_guard<std::mutex> lock(q.m);
      q.busy = false;
    }
    job->done.store(true, std::memory_order_release);
  }
}

void *thread_main(void *) {
  jit_mark_background_thread();
  // Never touches the Lisp heap, so the collector neither stops nor scans it.
  GC_do_blocking(reinterpret_cast<GC_fn_type>(run_jobs), nullptr);
  return nullptr;
}

void start_thread() {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, &old);  // inherited by the new thread
  pthread_t t;
  int rc = pthread_create(&t, nullptr, thread_main, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) throw_errorf("jit: cannot start the background compile thread: {}", std::strerror(rc));
  pthread_detach(t);
}

}  // namespace

bool jit_sync_mode() {
  static const bool sync = [] {
    const char *s = std::getenv("KILN_JIT");
    if (!s || !*s || std::strcmp(s, "background") == 0) return false;
    if (std::strcmp(s, "sync") == 0) return true;
    jit_message(std::string("warning: KILN_JIT=") + s +
                " is not one of sync or background; compiling in the background");
    return false;
  }();
  return sync;
}

BackgroundCompile *compile_in_background(const std::string &name, const std::string &key_text,
                                         void (*build)(gcc_jit_context *, void *), void *data) {
  Queue &q = queue();
  auto *job = new BackgroundCompile;
  job->name = name;
  job->key_text = key_text;
  job->build = build;
  job->data = data;
  std::lock_guard<std::mutex> lock(q.m);
  if (!q.started) {
    if (const char *d = std::getenv("KILN_JIT_TEST_DELAY_MS")) q.test_delay_ms = std::strtol(d, nullptr, 10);
    start_thread();
    q.started = true;
  }
  q.jobs.push_back(job);
  q.wake.notify_one();
  return job;
}

void wait_for_compile(BackgroundCompile *job) {
  while (!job->done.load(std::memory_order_acquire)) {
    if (g_interrupt) check_interrupt();
    usleep(1000);
  }
}

void jit_exit_now_if_compiling(int status) {
  Queue &q = queue();
  {
    std::lock_guard<std::mutex> lock(q.m);
    if (!q.started || (!q.busy && q.jobs.empty())) {
      jit_drain_messages();
      return;
    }
    q.jobs.clear();  // nothing queued starts now
    // Everything this thread has to say goes out first: after the hand-over, fd 2
    // stays on the compile's capture (jit_abandon_compile).
    jit_drain_messages();
    std::fflush(nullptr);
    jit_abandon_compile(status);
  }
  std::fflush(nullptr);
  std::_Exit(status);
}

}  // namespace kiln

// threadpool.cpp — see threadpool.h.
#include "runtime/threadpool.h"

#include <pthread.h>

#include <atomic>
#include <vector>

#include "runtime/eval.h"  // g_interrupt
#include "runtime/gc.h"    // with GC_THREADS: pthread_create registers the thread with the collector

namespace kiln {

namespace {

struct Pool {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
  pthread_cond_t done = PTHREAD_COND_INITIALIZER;
  pthread_mutex_t submit = PTHREAD_MUTEX_INITIALIZER;  // one job at a time
  int workers = 0;
  uint64_t generation = 0;  // bumped per job; workers wait for a new one
  // Current job.
  void (*fn)(void *, int64_t) = nullptr;
  void *ctx = nullptr;
  int64_t chunks = 0;
  int wanted = 0;                // workers that should join this job
  int joined = 0;                // workers that took part so far
  std::atomic<int64_t> next{0};  // next chunk to claim
  int active = 0;                // workers still running this job
};

Pool &pool() {
  static Pool *p = new Pool();  // never destroyed: workers may outlive main's statics
  return *p;
}

void run_chunks(Pool &p) {
  for (;;) {
    if (g_interrupt) return;  // Ctrl-C: no further chunk starts (threadpool.h)
    int64_t c = p.next.fetch_add(1);
    if (c >= p.chunks) return;
    p.fn(p.ctx, c);
  }
}

struct WaitForJob {
  Pool *p;
  uint64_t *seen;
};

// Runs "blocked" for the collector (GC_do_blocking): a worker waiting for a job
// holds no Lisp values, so a collection need not stop it with a signal and wait
// for its answer (a thread wake-up per collection otherwise).
void *wait_for_job(void *arg) {
  auto *w = static_cast<WaitForJob *>(arg);
  Pool &p = *w->p;
  while (p.generation == *w->seen || p.joined >= p.wanted) {
    if (p.generation != *w->seen) *w->seen = p.generation;  // a job this worker is not needed for
    pthread_cond_wait(&p.wake, &p.lock);
  }
  return nullptr;
}

void *worker_main(void *) {
  Pool &p = pool();
  uint64_t seen = 0;
  pthread_mutex_lock(&p.lock);
  for (;;) {
    WaitForJob w{&p, &seen};
    GC_do_blocking(wait_for_job, &w);
    seen = p.generation;
    p.joined++;
    p.active++;
    pthread_mutex_unlock(&p.lock);
    run_chunks(p);
    pthread_mutex_lock(&p.lock);
    if (--p.active == 0) pthread_cond_broadcast(&p.done);
  }
  return nullptr;
}

void ensure_workers(Pool &p, int n) {
  while (p.workers < n) {
    pthread_t t;
    if (pthread_create(&t, nullptr, worker_main, nullptr) != 0) return;  // run with fewer threads
    pthread_detach(t);
    p.workers++;
  }
}

}  // namespace

void parallel_for(int64_t chunks, int threads, void (*fn)(void *ctx, int64_t chunk), void *ctx) {
  if (chunks <= 0) return;
  if (threads <= 1 || chunks == 1) {
    for (int64_t c = 0; c < chunks && !g_interrupt; c++) fn(ctx, c);
    return;
  }
  Pool &p = pool();
  pthread_mutex_lock(&p.submit);
  pthread_mutex_lock(&p.lock);
  int helpers = threads - 1;
  if (helpers > chunks - 1) helpers = int(chunks - 1);
  ensure_workers(p, helpers);
  if (helpers > p.workers) helpers = p.workers;
  p.fn = fn;
  p.ctx = ctx;
  p.chunks = chunks;
  p.next.store(0);
  p.wanted = helpers;
  p.joined = 0;
  p.generation++;
  pthread_cond_broadcast(&p.wake);
  pthread_mutex_unlock(&p.lock);

  run_chunks(p);

  pthread_mutex_lock(&p.lock);
  // Every chunk is claimed; wait until the helpers that joined have finished
  // theirs, and stop further helpers from joining this job.
  p.wanted = p.joined;
  while (p.active > 0) pthread_cond_wait(&p.done, &p.lock);
  pthread_mutex_unlock(&p.lock);
  pthread_mutex_unlock(&p.submit);
}

}  // namespace kiln

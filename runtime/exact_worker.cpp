// exact_worker.cpp — see exact_worker.h.
#include "runtime/exact_worker.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/exact.h"
#include "runtime/gc.h"

namespace kiln {

namespace {

struct ExactJob {
  Value a, b;  // also pinned (see Pins) until `finished`
  ExactWork work;
  Mpz out;
  std::atomic<bool> cancel{false};
  std::atomic<bool> finished{false};
  bool failed = false;  // the work threw (std::bad_alloc from the C++ side)
  std::mutex m;
  std::condition_variable cv;
};

void run_work(ExactJob &job) {
  try {
    IntView a(job.a), b(job.b);
    job.work(job.out, a, b, job.cancel);
  } catch (...) {
    job.failed = true;
  }
  std::lock_guard<std::mutex> lock(job.m);
  job.finished = true;
  job.cv.notify_one();
}

// Operands of running jobs, in a GC root: a job interrupted on the evaluator's
// side keeps its slot until its worker is done with them. Only the evaluator's
// thread touches the table.
constexpr int kSlots = 8;
struct Pins {
  Value *roots = static_cast<Value *>(gc_alloc_root(2 * kSlots * sizeof(Value)));
  std::shared_ptr<ExactJob> jobs[kSlots];

  void release(int i) {
    jobs[i].reset();
    roots[2 * i] = roots[2 * i + 1] = make_fixnum(0);
  }
  // A free slot; waits (polling for Ctrl-C) while every slot holds a worker
  // that an earlier interrupt left running.
  int claim(const std::shared_ptr<ExactJob> &job) {
    for (;;) {
      for (int i = 0; i < kSlots; i++) {
        if (jobs[i] && jobs[i]->finished) release(i);
        if (!jobs[i]) {
          jobs[i] = job;
          roots[2 * i] = job->a;
          roots[2 * i + 1] = job->b;
          return i;
        }
      }
      check_interrupt();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
};

Pins &pins() {
  static Pins *p = new Pins();  // never destroyed: detached workers may outlive main's statics
  return *p;
}

}  // namespace

Value run_exact_job(Value a, Value b, ExactWork work) {
  auto job = std::make_shared<ExactJob>();
  job->a = a;
  job->b = b;
  job->work = std::move(work);
  int slot = pins().claim(job);
  std::thread worker;
  try {
    worker = std::thread([job] { run_work(*job); });
  } catch (const std::exception &) {  // no thread to be had (system_error, bad_alloc): work here
    run_work(*job);
  }
  if (worker.joinable()) {
    try {
      std::unique_lock<std::mutex> lock(job->m);
      while (!job->finished) {
        job->cv.wait_for(lock, std::chrono::milliseconds(20));
        lock.unlock();
        check_interrupt();
        lock.lock();
      }
    } catch (...) {
      job->cancel = true;
      worker.detach();  // it stops at its next look at `cancel`; its slot keeps the operands alive
      throw;
    }
    worker.join();
  }
  pins().release(slot);
  if (job->failed) throw_error("out of memory: cannot compute an exact result");
  return value_of_mpz(job->out);
}

}  // namespace kiln

// exact_worker.h — GMP work on huge integers, off the evaluator's thread.
//
// Invariant: a GMP call cannot be interrupted, and on integers of hundreds of
// megabytes one call (a product, a power, even a sum whose result's pages fault
// in) takes seconds, so such work runs on a worker thread while the evaluator's
// thread waits polling for Ctrl-C. On an interrupt the evaluator leaves at once;
// the worker stops at its next look at `cancel` and frees what it made. The
// worker reads its operands only as views of the Values given to
// run_exact_job, which stay pinned in a GC root until it is done (even after the
// evaluator has left), and writes only GMP's malloc memory owned by the job: it
// never allocates GC memory, so it need not be registered with the collector.
// Only the evaluator's thread calls run_exact_job.
#pragma once
#include <gmp.h>

#include <atomic>
#include <cstdint>
#include <functional>

#include "runtime/object.h"

namespace kiln {

// Operands of at least this many bits go to the worker (below, a GMP step
// takes well under 10 ms and a thread would cost more than it saves).
constexpr uint64_t kExactWorkerBits = uint64_t(1) << 22;

// The work: writes its result to `out` from the views `a` and `b` of the two
// operands (exact integers; b is 0 when unused). It may return early once
// `cancel` is set (its result is then dropped). It must capture nothing by
// reference: after an interrupt it outlives the caller's frame.
using ExactWork =
    std::function<void(mpz_ptr out, mpz_srcptr a, mpz_srcptr b, const std::atomic<bool> &cancel)>;

// Runs `work` on a worker thread (or here, when no thread can be had) and
// returns the result as a Value; Ctrl-C while it runs raises `interrupted`.
Value run_exact_job(Value a, Value b, ExactWork work);

// Whether an operation on integers of these sizes should use run_exact_job.
inline bool exact_job_wanted(uint64_t bits) { return bits >= kExactWorkerBits; }

}  // namespace kiln

// threadpool.h — a persistent pool of worker threads for the tensor ops and compiled kernels.
//
// Invariant: workers are created through pthread_create after gc.h with
// GC_THREADS defined (so the collector knows them), and they touch only
// pointer-free data buffers that the calling thread keeps alive until
// parallel_for returns; they never allocate GC memory or see a Lisp value. A
// job's result therefore cannot depend on which worker ran which chunk.
#pragma once
#include <cstdint>

namespace kiln {

// Calls fn(ctx, chunk) for every chunk in [0, chunks), spread over up to
// `threads` threads (the caller is one of them), and returns when all are done.
// Calls from several threads at once are serialised. Once Ctrl-C has set
// g_interrupt no further chunk starts, so the job may end unfinished: a caller
// on the evaluator's thread then raises `interrupted` (check_interrupt), and
// any other caller must treat its result as void.
void parallel_for(int64_t chunks, int threads, void (*fn)(void *ctx, int64_t chunk), void *ctx);

}  // namespace kiln

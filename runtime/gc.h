// gc.h — the one place Kiln talks to the Boehm collector.
//
// Invariant: gc_init() runs before the first allocation (main and the Catch2
// runner both call it), and every thread that touches Lisp values was created
// through GC_pthread_create (GC_THREADS is defined project-wide, so gc.h's
// pthread_create redirection does this) or registered explicitly.
#pragma once
#include <gc.h>

#include <csignal>
#include <cstddef>
#include <cstdint>

namespace kiln {

void gc_init();
// A collection of a heap of gigabytes takes seconds. While *flag is set (the
// evaluator's pending Ctrl-C) the collector abandons a collection it is
// running, and the allocation grows the heap instead, so the next interrupt
// poll answers without waiting for the mark phase.
void gc_stop_collections_when(const volatile std::sig_atomic_t *flag);
// The collector's warning procedure (gc_init installs it): drops the notes it
// makes while memory runs out, passes every other warning to stderr.
void gc_warning(char *msg, GC_word arg);
// Writable segments of shared libraries gc_init told the collector to skip
// (see kUnscannedLibraries in gc.cpp).
extern int g_gc_unscanned_segments;

// KILN_GC_STRESS=N forces a full collection every N allocations (0 = off).
extern uint64_t g_gc_stress_every;
extern uint64_t g_gc_stress_count;
void gc_stress_tick();

// Raises "out of memory: cannot allocate N bytes" (error.cpp) when the
// collector refuses an allocation, as it does for (make-vector 100000000000).
[[noreturn]] void gc_out_of_memory(size_t bytes);

// The collector's answer, or the out-of-memory error when it had none.
inline void *gc_checked(void *p, size_t n) {
  if (!p) [[unlikely]]
    gc_out_of_memory(n);
  return p;
}

// The out-of-memory error for `count` items of `size` bytes after `header`
// bytes, a request too large even to count in a size_t: the message gives the
// exact byte count, as gc_out_of_memory does.
[[noreturn]] void gc_out_of_memory_for(uint64_t count, size_t size, size_t header);

// header + count * size, checked: every allocation whose size depends on a
// length or a shape from Lisp computes its bytes here, since a wrapped product
// would allocate a small block and the caller would fill it far past its end.
inline size_t alloc_bytes(uint64_t count, size_t size, size_t header = 0) {
  size_t n;
  if (__builtin_mul_overflow(count, size, &n) || __builtin_add_overflow(n, header, &n)) [[unlikely]]
    gc_out_of_memory_for(count, size, header);
  return n;
}

inline void *gc_alloc(size_t n) {
  if (g_gc_stress_every) gc_stress_tick();
  return gc_checked(GC_MALLOC(n), n);
}
// Pointer-free memory (string bytes, tensor data). Not zeroed.
inline void *gc_alloc_atomic(size_t n) {
  if (g_gc_stress_every) gc_stress_tick();
  return gc_checked(GC_MALLOC_ATOMIC(n), n);
}
// Scanned memory the collector does not clear, for large blocks of Lisp values
// that the caller fills at once in chunks polled for Ctrl-C (make_vector): the
// collector clears ordinary blocks inside one call, and faulting in a 16 GiB
// vector's pages that way held Ctrl-C off for 45 s. Until it is filled such a
// block holds stale words the collector may take for pointers; that can only
// keep garbage alive, never free live data. The caller must write all n bytes;
// the block's slack beyond n (the collector rounds sizes up) is cleared here,
// since nobody else would ever write it (stack copies of continuations
// kept each other alive through it).
void *gc_alloc_unzeroed(size_t n);
// Never collected and always scanned: roots such as symbols.
inline void *gc_alloc_root(size_t n) { return gc_checked(GC_MALLOC_UNCOLLECTABLE(n), n); }

}  // namespace kiln

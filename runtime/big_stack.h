// big_stack.h — running the interpreter on a thread with a large stack.
//
// Why it exists: the evaluator, the analyser, macro expansion and the reader
// recurse on the nesting of their input (non-tail calls, nested lists), and a
// program may recurse millions deep; the main thread's stack (8 MiB by
// default, fixed by the environment) is too small for that. So kiln, the unit
// tests and the benchmarks run their work on a thread whose stack they make.
//
// Invariants:
// - the stack is reserved, not committed: an anonymous MAP_NORESERVE mapping
//   (a quarter of memory by default, an eighth of an address-space limit)
//   whose pages cost memory only once a deep recursion touches them, below an
//   inaccessible guard; release_deep_stack() gives back what a deep recursion
//   touched once it has returned;
// - g_stack_limit (eval_internal.h) is set on each thread that evaluates, a
//   margin above the stack's lowest address, so check_stack() raises "stack
//   overflow" while there is still room to unwind and report it;
// - the thread is registered with the collector: GC_THREADS is defined
//   project-wide, so gc.h redirects pthread_create to the collector's, which
//   registers the thread and scans its stack (the part in use, from the stack
//   pointer up: a recursion that has returned costs collections nothing). A
//   thread made any other way would hold the only references to Lisp values on
//   an unscanned stack;
// - while the calling thread waits for it, that thread is "blocked" for the
//   collector (GC_do_blocking), so collections do not stop it with a signal.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln {

// The interpreter's stack size in bytes: KILN_STACK_MB (MiB, at least 16) when
// env_mb is set, else a quarter of usable_memory and at most an eighth of
// address_space (an address-space limit, 0 for none: the reservation counts
// against it in full), at least 128 MiB; a whole number of MiB either way. An
// env_mb that is not a number counts as unset.
size_t interpreter_stack_bytes(const char *env_mb, uint64_t usable_memory, uint64_t address_space = 0);
// The memory this process may use: physical memory, or the cgroup's limit or the
// address-space limit (RLIMIT_AS) when lower; 0 if unknown.
uint64_t usable_memory_bytes();
// The address-space limit (RLIMIT_AS, ulimit -v) in bytes; 0 if none.
uint64_t address_space_limit_bytes();

// Runs fn(arg) on a new thread with the stack above (KILN_STACK_MB, or from
// memory) and returns its result. If that much cannot be reserved, it tries
// halves down to 128 MiB (16 with a smaller KILN_STACK_MB); if no thread can be
// made, it runs fn here.
int run_on_big_stack(int (*fn)(void *), void *arg);
// Sets g_stack_limit for the main thread, for code that evaluates without
// run_on_big_stack (the unit tests).
void init_stack_limit_for_main_thread();
// Called between top-level forms, with nothing live below the caller's frame:
// if the stack was used more than a few MiB below it, returns those pages to
// the system (they read as zero when touched again). A no-op off the thread
// run_on_big_stack made.
void release_deep_stack();

}  // namespace kiln

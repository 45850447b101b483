// big_stack.h — running the interpreter on a thread with a large stack.
//
// Why it exists: the evaluator, the analyser, macro expansion and the reader
// recurse on the nesting of their input (non-tail calls, nested lists), and a
// program may nest 100 000 deep; the main thread's stack (8 MiB by default,
// fixed by the environment) is too small for that. So kiln, the unit tests and
// the benchmarks run their work on a thread whose stack size they choose.
//
// Invariants:
// - g_stack_limit (eval_internal.h) is set on each thread that evaluates, a
//   margin above the stack's lowest address, so check_stack() raises "stack
//   overflow" while there is still room to unwind and report it;
// - the thread is registered with the collector: GC_THREADS is defined
//   project-wide, so gc.h redirects pthread_create to the collector's, which
//   registers the thread and scans its stack. A thread made any other way
//   would hold the only references to Lisp values on an unscanned stack;
// - while the calling thread waits for it, that thread is "blocked" for the
//   collector (GC_do_blocking), so collections do not stop it with a signal.
#pragma once

namespace kiln {

// Runs fn(arg) on a new thread with a large stack (128 MiB, or KILN_STACK_MB,
// at least 16) and returns its result. If no thread can be made, runs it here.
int run_on_big_stack(int (*fn)(void *), void *arg);
// Sets g_stack_limit for the main thread, for code that evaluates without
// run_on_big_stack (the unit tests).
void init_stack_limit_for_main_thread();

}  // namespace kiln

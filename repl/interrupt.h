// interrupt.h — Ctrl-C for the REPL.
//
// Invariant: while the REPL runs, SIGINT only sets kiln::g_interrupt (which the
// evaluator polls at every call and loop back-edge) and writes one byte to a
// self-pipe. Both are async-signal-safe, and the pipe lets the prompt notice a
// Ctrl-C even when the signal was delivered to another thread (GC markers,
// tensor worker threads) and so did not interrupt the prompt's select().
#pragma once

namespace kiln {

// Installs the handler (idempotent). SA_RESTART is set, so a blocking read in
// a running program is not broken by Ctrl-C; the evaluator notices the flag
// (and read_stdin_interruptibly, the pipe).
void install_repl_interrupt_handler();

// Read end of the self-pipe (non-blocking), or -1 before installation.
int interrupt_pipe_fd();

// One byte of stdin (-1 at its end), read with read(2) rather than stdio; a
// Ctrl-C while it waits throws InterruptThrow. The terminal REPL makes it the
// runtime's stdin reader (set_stdin_reader): readline reads fd 0 directly
// too, so no stdio buffer holds bytes it would miss.
int read_stdin_interruptibly();

// Empties the self-pipe and clears g_interrupt: called before reading a new
// entry and before evaluating one, so a stale Ctrl-C never hits the next form.
void clear_pending_interrupts();

}  // namespace kiln

// session.h — what the command line, the REPL and the test runner share:
// running code and reporting uncaught errors the docs/cli.md way.
//
// Invariant: every entry point that evaluates Lisp code goes through
// run_guarded, so an uncaught error is printed exactly once, after stdout was
// flushed, and maps to an exit status (1 for errors, n for (exit n)).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "runtime/error.h"

namespace kiln {

// "FILE:LINE:COL: error: MESSAGE" for the error in g_raised (no location
// when none is known).
std::string error_headline(const LispError &e);
// One "  at NAME (FILE:LINE:COL)" line per frame, innermost first.
std::string format_trace(const std::vector<TraceEntry> &trace);
// Prints error_headline and format_trace on stderr.
void report_uncaught(const LispError &e);
void report_uncaught_message(const std::string &msg);
// C++ memory (malloc) ran out where no Lisp error could be made, or while
// reporting one: prints "error: out of memory" without allocating.
void report_malloc_exhausted();

enum class RunResult { ok, error, exit };
// Runs fn; on an uncaught Lisp error reports it. *exit_code is set for exit.
RunResult run_guarded(const std::function<void()> &fn, int *exit_code);

int run_repl(bool banner);

}  // namespace kiln

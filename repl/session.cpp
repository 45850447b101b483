#include "repl/session.h"

#include <cstdio>
#include <new>
#include <stdexcept>

#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/srcloc.h"

namespace kiln {

void report_uncaught_message(const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", msg.c_str());
  std::fflush(stderr);
}

std::string error_headline(const LispError &e) {
  std::string where = format_loc(e.loc);
  return (where.empty() ? "" : where + ": ") + "error: " + error_message_of(g_raised);
}

std::string format_trace(const std::vector<TraceEntry> &trace) {
  std::string out;
  for (const TraceEntry &t : trace) {
    out += "  at " + t.name;
    std::string l = format_loc(t.loc);
    if (!l.empty()) out += " (" + l + ")";
    out += "\n";
  }
  return out;
}

void report_uncaught(const LispError &e) {
  std::string out = error_headline(e) + "\n" + format_trace(e.trace);
  std::fflush(stdout);
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
  g_raised = NOVALUE;
}

void report_malloc_exhausted() {
  g_raised = NOVALUE;
  std::fflush(stdout);
  std::fputs("error: out of memory\n", stderr);
  std::fflush(stderr);
}

RunResult run_guarded(const std::function<void()> &fn, int *exit_code) {
  try {
    fn();
    return RunResult::ok;
  } catch (LispError &e) {
    try {
      report_uncaught(e);
    } catch (const std::bad_alloc &) {
      report_malloc_exhausted();
    }
    *exit_code = 1;
    return RunResult::error;
  } catch (ExitThrow &x) {
    *exit_code = x.code;
    return RunResult::exit;
  } catch (ContinuationThrow &) {
    report_uncaught_message("error: continuation invoked outside its extent");
    *exit_code = 1;
    return RunResult::error;
  } catch (InterruptThrow &) {
    report_uncaught_message("interrupted");
    *exit_code = 130;
    return RunResult::error;
  } catch (const std::bad_alloc &) {
    report_malloc_exhausted();
    *exit_code = 1;
    return RunResult::error;
  } catch (const std::length_error &) {  // a size past what malloc can hold
    report_malloc_exhausted();
    *exit_code = 1;
    return RunResult::error;
  }
}

}  // namespace kiln

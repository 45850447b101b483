#include "repl/repl_eval.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "repl/interrupt.h"
#include "repl/session.h"
#include "repl/tensor_echo.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/reader.h"
#include "runtime/srcloc.h"

namespace kiln {

bool colour_terminal() {
  const char *no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return false;
  const char *term = std::getenv("TERM");
  if (!term || std::strcmp(term, "dumb") == 0) return false;
  return isatty(STDERR_FILENO);
}

static void report_error(const ReplSession &s, const std::string &message, const ReplError *error) {
  if (s.output) {
    s.output->error(message, error);
    return;
  }
  std::string line = s.colour ? "\033[31m" + message + "\033[0m\n" : message + "\n";
  std::fflush(stdout);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

std::string backtrace_lines(const ReplError &e) {
  std::string text = format_trace(e.trace);
  if (e.outermost.known()) text += "  at top level (" + format_loc(e.outermost) + ")\n";
  return text;
}

void print_repl_error(const ReplSession &s, const std::string &message) { report_error(s, message, nullptr); }

void print_result(Value v) {
  std::string out = echo_string(v);
  if (out.empty()) return;
  out += '\n';
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

bool run_in_repl(ReplSession &s, const std::function<void()> &fn) {
  clear_pending_interrupts();
  s.current_form = SrcLoc{};
  try {
    fn();
    return true;
  } catch (LispError &e) {
    try {
      std::string line = error_headline(e);
      g_raised = NOVALUE;
      // Unwinding every frame left `pending` at the call that entered the
      // outermost one: the top-level form. An error while a macro use is
      // expanded unwinds no call of it, so the form's own place stands in.
      SrcLoc outermost = e.pending.known() ? e.pending : s.current_form;
      s.last_error = ReplError{line, std::move(e.trace), outermost};
      s.had_error = true;
      report_error(s, line, &s.last_error);
    } catch (const std::bad_alloc &) {
      report_malloc_exhausted();
    }
  } catch (ExitThrow &x) {
    s.finished = true;
    s.exit_code = x.code;
  } catch (ContinuationThrow &) {
    print_repl_error(s, "error: continuation invoked outside its extent");
  } catch (const std::bad_alloc &) {
    report_malloc_exhausted();
  } catch (const std::length_error &) {  // a size past what malloc can hold
    report_malloc_exhausted();
  } catch (InterruptThrow &) {
    if (s.output) {
      s.output->interrupted();
      clear_pending_interrupts();
      return false;
    }
    // On a terminal the line discipline has echoed ^C without a newline.
    std::fflush(stdout);
    std::fputs(s.interactive ? "\ninterrupted\n" : "interrupted\n", stderr);
    std::fflush(stderr);
  }
  clear_pending_interrupts();
  return false;
}

void eval_entry(ReplSession &s, const std::string &text) {
  std::string name = fmt::format("<{}-{}>", s.source_prefix, ++s.entries);
  run_in_repl(s, [&] {
    SourceReader reader(text, register_source_file(name));
    for (;;) {
      Value form = reader.next();
      if (form == NOVALUE) break;
      s.current_form = loc_of(form);
      Value v = eval_toplevel(form);
      if (s.output) s.output->value(v);
      else print_result(v);
    }
  });
}

}  // namespace kiln

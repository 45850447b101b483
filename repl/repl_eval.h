// repl_eval.h — evaluating REPL entries and reporting their outcome.
//
// Invariant: nothing that happens while evaluating an entry ends the session
// except (exit n) and ,quit: an error prints one line on stderr (red when
// `colour`), Ctrl-C prints `interrupted`, and every global definition made
// before the failure stays in place. Standard output is flushed before
// anything goes to stderr, so merged output keeps the order of events.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/value.h"

namespace kiln {

// What ,bt shows: plain C++ data copied from the LispError, so keeping it
// holds no Lisp value alive.
struct ReplError {
  std::string headline;           // as the error printed: "WHERE: error: MESSAGE"
  std::vector<TraceEntry> trace;  // procedure frames, innermost first
  SrcLoc outermost;               // the top-level call the frames were entered from
};

// Where the outcome of an entry goes when it is not the terminal: the Jupyter
// kernel (repl/jupyter_kernel.cpp) turns values and errors into messages.
struct ReplOutput {
  virtual ~ReplOutput() = default;
  virtual void value(Value v) = 0;  // each top-level form's value, UNSPEC included
  // An error's one line; `error` is the session's last_error when the line
  // reports a Lisp error (else null: a command's usage error, an interrupt).
  virtual void error(const std::string &line, const ReplError *error) = 0;
  virtual void interrupted() = 0;  // Ctrl-C (SIGINT) stopped the entry
};

struct ReplSession {
  bool interactive = false;  // stdin is a terminal
  bool colour = false;       // errors in red
  bool finished = false;     // (exit n) or ,quit: leave the loop
  int exit_code = 0;
  int entries = 0;                     // numbers the <repl-N> source names
  const char *source_prefix = "repl";  // the notebook's cells are <cell-N>
  bool had_error = false;
  ReplError last_error;          // valid when had_error
  SrcLoc current_form;           // the top-level form being evaluated, if known
  ReplOutput *output = nullptr;  // null: print on stdout and stderr
};

// What ,bt shows below the error's line: one "  at NAME (WHERE)" line per frame,
// innermost first, then "  at top level (WHERE)" when the form's place is known.
std::string backtrace_lines(const ReplError &e);

// Whether errors may be coloured: stderr is a terminal, NO_COLOR is unset or
// empty, and TERM is not "dumb".
bool colour_terminal();

void print_repl_error(const ReplSession &s, const std::string &message);
// Echoes a result (tensor_echo.h): write form, a tensor of rank >= 2 by rows;
// nothing for the unspecified value, one line per value for multiple values.
void print_result(Value v);

// Runs fn, reporting errors and interrupts. Returns true when fn completed.
bool run_in_repl(ReplSession &s, const std::function<void()> &fn);

// Reads every form of `text` and evaluates them in order, echoing each value.
void eval_entry(ReplSession &s, const std::string &text);

}  // namespace kiln

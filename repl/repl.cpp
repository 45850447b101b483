// repl.cpp — the read-eval-print loop (docs/repl.md).
//
// Invariant: an entry is evaluated only once it is complete (entry_scan.h): no
// bracket, string or block comment is left open, or a closing bracket is
// unmatched, which the reader then reports at once. Until then lines accumulate behind the `  ...> ` prompt.
// A whole entry, however many lines or forms, is one history entry.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "repl/commands.h"
#include "repl/entry_scan.h"
#include "repl/history.h"
#include "repl/interrupt.h"
#include "repl/line_editor.h"
#include "repl/repl_eval.h"
#include "repl/session.h"

namespace kiln {

static bool is_blank(const std::string &s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

static void run_entry(ReplSession &s, const std::string &entry) {
  if (is_repl_command(entry)) run_repl_command(s, entry);
  else eval_entry(s, entry);
}

int run_repl(bool banner) {
  ReplSession s;
  s.interactive = isatty(STDIN_FILENO);
  s.colour = s.interactive && colour_terminal();
  auto editor = make_line_editor(s.interactive, s.interactive ? history_file_path() : "");
  install_repl_interrupt_handler();
  if (banner && s.interactive) {
    std::printf("Kiln %s — ,help for help, Ctrl-D to exit\n", KILN_VERSION);
    std::fflush(stdout);
  }
  std::string buffer;
  std::string line;
  while (!s.finished) {
    ReadResult r = editor->read_line(buffer.empty() ? "kiln> " : "  ...> ", &line);
    if (r == ReadResult::interrupted) {
      buffer.clear();
      continue;
    }
    if (r == ReadResult::end_of_input) {
      if (!s.interactive && !is_blank(buffer))
        eval_entry(s, buffer);  // piped input: report the unfinished form as a script would
      break;
    }
    buffer += line;
    buffer += '\n';
    if (!scan_entry(buffer).complete()) continue;
    std::string entry;
    entry.swap(buffer);
    if (is_blank(entry)) continue;
    entry.pop_back();  // the newline added above
    editor->remember(entry);
    run_entry(s, entry);
  }
  std::fflush(stdout);
  return s.exit_code;
}

}  // namespace kiln

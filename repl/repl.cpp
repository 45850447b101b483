// repl.cpp — the read-eval-print loop (plain mode; line editing comes with the REPL issue).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/reader.h"
#include "runtime/srcloc.h"
#include "session.h"

namespace kiln {

static void print_result(Value v) {
  if (v == UNSPEC) return;
  std::string out;
  if (is_values(v)) {
    MultipleValues *mv = as<MultipleValues>(v);
    for (int64_t i = 0; i < mv->n; i++) out += write_string(mv->items[i]) + "\n";
  } else {
    out = write_string(v) + "\n";
  }
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

int run_repl(bool banner) {
  bool tty = isatty(0) && isatty(1);
  if (banner && tty) std::printf("Kiln %s — ,help for help, Ctrl-D to exit\n", KILN_VERSION);
  std::signal(SIGINT, [](int) { g_interrupt = 1; });
  std::string buffer;
  std::string line;
  int entry = 0;
  for (;;) {
    if (tty) {
      std::fputs(buffer.empty() ? "kiln> " : "  ...> ", stdout);
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, line)) break;
    buffer += line;
    buffer += '\n';
    bool in_string = false;
    int depth = open_depth(buffer, &in_string);
    if (depth > 0 || in_string) continue;
    std::string text;
    text.swap(buffer);
    int code = 0;
    std::string name = fmt::format("<repl-{}>", ++entry);
    RunResult r = run_guarded(
        [&] {
          SourceReader reader(text, register_source_file(name));
          for (;;) {
            Value form = reader.next();
            if (form == NOVALUE) break;
            print_result(eval_toplevel(form));
          }
        },
        &code);
    if (r == RunResult::exit) return code;
    g_interrupt = 0;
  }
  return 0;
}

}  // namespace kiln

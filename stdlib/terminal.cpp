// terminal.cpp — asking whether a port writes to a terminal, and how wide it is
// (docs/builtins.md, "Ports and string ports"). with-progress draws only when
// the error port is a terminal and keeps its line inside the terminal's width.
#include <sys/ioctl.h>
#include <unistd.h>

#include "runtime/port.h"
#include "stdlib/builtins.h"

namespace kiln {

namespace {

Port *arg_port(const char *who, Value v) {
  if (!is_port(v)) type_error(who, 1, "a port", v);
  return as<Port>(v);
}

bool is_terminal(Port *p) { return p->is_file && !p->closed && p->fp && isatty(fileno(p->fp)); }

Value b_terminal_port_p(int, Value *argv) { return boolv(is_terminal(arg_port("terminal-port?", argv[0]))); }

Value b_terminal_width(int, Value *argv) {
  Port *p = arg_port("terminal-width", argv[0]);
  winsize ws{};
  if (!is_terminal(p) || ioctl(fileno(p->fp), TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return FALSE_V;
  return make_int(ws.ws_col);
}

BuiltinRegistrar terminal_registrar([] {
  defbuiltin("terminal-port?", 1, 1, b_terminal_port_p,
             "(terminal-port? PORT): #t if PORT is an open file port on a terminal.");
  defbuiltin("terminal-width", 1, 1, b_terminal_width,
             "(terminal-width PORT): the number of columns of PORT's terminal, or #f when PORT is not on a "
             "terminal or the terminal does not say.");
});

}  // namespace
}  // namespace kiln

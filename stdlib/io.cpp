// io.cpp — output, input, file, process-context and time builtins
// (R7RS scheme base/read/write/file/process-context/time, docs/builtins.md).
//
// Invariant: all output goes through port_write on a checked, open output
// port; a builtin that rebinds a current port (with-output-to-string,
// with-output-to-file, with-input-from-file) restores the previous port on
// every exit, normal or by exception/continuation, before the exit continues.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "compiler/jit_context.h"
#include "runtime/eval.h"
#include "runtime/port.h"
#include "runtime/printer.h"
#include "runtime/reader.h"
#include "runtime/utf8.h"
#include "stdlib/builtins.h"
#include "stdlib/port_args.h"

extern char **environ;

namespace kiln {

// ---- port arguments (port_args.h) ---------------------------------------------------

Port *checked_open(const char *who, Port *p) {
  if (p->closed) throw_errorf("{}: port is closed", who);
  return p;
}

// argv[idx] when present (must be an output port), else the current output port.
Port *out_port(const char *who, int argc, Value *argv, int idx) {
  Value v = argc > idx ? argv[idx] : current_output_port();
  if (!is_port(v) || !(as<Port>(v)->kind & PORT_OUTPUT)) {
    if (argc > idx) type_error(who, idx + 1, "an output port", v);
    throw_errorf("{}: the current output port is not an output port, got {}", who, error_value_string(v));
  }
  return checked_open(who, as<Port>(v));
}

Port *in_port(const char *who, int argc, Value *argv, int idx) {
  Value v = argc > idx ? argv[idx] : current_input_port();
  if (!is_port(v) || !(as<Port>(v)->kind & PORT_INPUT)) {
    if (argc > idx) type_error(who, idx + 1, "an input port", v);
    throw_errorf("{}: the current input port is not an input port, got {}", who, error_value_string(v));
  }
  return checked_open(who, as<Port>(v));
}

Port *text_in_port(const char *who, int argc, Value *argv, int idx) {
  Port *p = in_port(who, argc, argv, idx);
  if (p->binary) {
    if (argc > idx) type_error(who, idx + 1, "a textual input port", argv[idx]);
    throw_errorf("{}: the current input port is not a textual port, got {}", who,
                 error_value_string(current_input_port()));
  }
  return p;
}

Port *any_port(const char *who, Value v) {
  if (!is_port(v)) type_error(who, 1, "a port", v);
  return as<Port>(v);
}

namespace {

// ---- output ------------------------------------------------------------------

Value print_to(const char *who, int argc, Value *argv, bool write) {
  Port *p = out_port(who, argc, argv, 1);
  std::string s;
  print_value_interruptible(s, argv[0], write);
  port_write(p, s);
  return UNSPEC;
}
Value b_display(int argc, Value *argv) { return print_to("display", argc, argv, false); }
Value b_write(int argc, Value *argv) { return print_to("write", argc, argv, true); }
Value b_write_shared(int argc, Value *argv) {
  Port *p = out_port("write-shared", argc, argv, 1);
  std::string s;
  print_value_shared(s, argv[0]);
  port_write(p, s);
  return UNSPEC;
}
// R7RS's write-simple uses no labels at all, so it never ends on a cycle; here
// it labels cycles as write does, so it always ends.
Value b_write_simple(int argc, Value *argv) { return print_to("write-simple", argc, argv, true); }

Value b_newline(int argc, Value *argv) {
  port_write(out_port("newline", argc, argv, 0), "\n");
  return UNSPEC;
}

Value b_write_char(int argc, Value *argv) {
  char bytes[4];
  int n = utf8_encode(arg_char("write-char", 1, argv[0]), bytes);
  port_write(out_port("write-char", argc, argv, 1), std::string_view(bytes, size_t(n)));
  return UNSPEC;
}

Value b_write_string(int argc, Value *argv) {
  String *s = arg_string("write-string", 1, argv[0]);
  Port *p = out_port("write-string", argc, argv, 1);
  int64_t start = 0, end = s->len;
  if (argc > 2) {
    start = arg_index("write-string", 3, argv[2]);
    if (start > s->len) range_error("write-string", start, "string", s->len);
  }
  if (argc > 3) {
    end = arg_index("write-string", 4, argv[3]);
    if (end > s->len) range_error("write-string", end, "string", s->len);
  }
  if (start > end) throw_errorf("write-string: start {} is greater than end {}", start, end);
  Value part = start == 0 && end == s->len ? argv[0] : string_slice(s, start, end);
  port_write(p, string_view_of(part));
  return UNSPEC;
}

// print and println: display forms separated by one space, then a newline.
Value print_line(const char *who, int argc, Value *argv) {
  Port *p = out_port(who, 0, argv, 0);
  std::string s;
  for (int i = 0; i < argc; i++) {
    if (i) s += ' ';
    print_value_interruptible(s, argv[i], false);
  }
  s += '\n';
  port_write(p, s);
  return UNSPEC;
}
Value b_print(int argc, Value *argv) { return print_line("print", argc, argv); }
Value b_println(int argc, Value *argv) { return print_line("println", argc, argv); }

Value b_flush_output_port(int argc, Value *argv) {
  port_flush(out_port("flush-output-port", argc, argv, 0));
  return UNSPEC;
}

// ---- string ports ----------------------------------------------------------------

Value b_open_output_string(int, Value *) { return make_string_output_port(); }
Value b_open_input_string(int, Value *argv) {
  arg_string("open-input-string", 1, argv[0]);
  return make_string_input_port_of(argv[0]);
}
Value b_get_output_string(int, Value *argv) {
  Value v = argv[0];
  if (!is_port(v) || as<Port>(v)->is_file || !(as<Port>(v)->kind & PORT_OUTPUT))
    type_error("get-output-string", 1, "a string output port", v);
  return make_string(port_output_bytes(as<Port>(v)));
}

// Calls THUNK with the current output (or input) port set to PORT, restoring
// the previous port however the call ends.
Value call_with_current_port(bool output, Value port, Value thunk) {
  Value saved = output ? current_output_port() : current_input_port();
  auto set = output ? set_current_output_port : set_current_input_port;
  set(port);
  Value result;
  try {
    result = apply_proc(thunk, 0, nullptr);
  } catch (...) {
    set(saved);
    throw;
  }
  set(saved);
  return result;
}

Value b_with_output_to_string(int, Value *argv) {
  Value thunk = arg_proc("with-output-to-string", 1, argv[0]);
  Value port = make_string_output_port();
  call_with_current_port(true, port, thunk);
  return make_string(port_output_bytes(as<Port>(port)));
}

Value b_call_with_output_string(int, Value *argv) {
  Value proc = arg_proc("call-with-output-string", 1, argv[0]);
  Value port = make_string_output_port();
  apply_proc(proc, 1, &port);
  return make_string(port_output_bytes(as<Port>(port)));
}

// ---- input -----------------------------------------------------------------------

Value b_read(int argc, Value *argv) { return read_datum(text_in_port("read", argc, argv, 0)); }

Value b_read_char(int argc, Value *argv) {
  int c = port_read_char(text_in_port("read-char", argc, argv, 0));
  return c < 0 ? EOF_V : make_char(uint32_t(c));
}

Value b_peek_char(int argc, Value *argv) {
  int c = port_peek_char(text_in_port("peek-char", argc, argv, 0));
  return c < 0 ? EOF_V : make_char(uint32_t(c));
}

// A line without its line ending (LF, CR LF or CR: R7RS 7.1.1); the eof object at
// end of input.
Value b_read_line(int argc, Value *argv) {
  Port *p = text_in_port("read-line", argc, argv, 0);
  std::string line;
  int c = port_read_char(p);
  if (c < 0) return EOF_V;
  while (c >= 0 && c != '\n' && c != '\r') {
    utf8_append(line, uint32_t(c));
    c = port_read_char(p);
  }
  if (c == '\r' && port_peek_char(p) == '\n') port_read_char(p);
  return make_string(line);
}

// (read-string K [PORT]): up to K chars; the eof object when none are left.
Value b_read_string(int argc, Value *argv) {
  int64_t k = arg_index("read-string", 1, argv[0]);
  Port *p = text_in_port("read-string", argc, argv, 1);
  std::vector<uint32_t> out;
  while (int64_t(out.size()) < k) {
    int c = port_read_char(p);
    if (c < 0) break;
    out.push_back(uint32_t(c));
  }
  if (out.empty() && k > 0) return EOF_V;
  return make_string_from_chars(out.data(), int64_t(out.size()));
}

// Reading a char never blocks for string ports; for files Kiln cannot tell
// cheaply, and R7RS allows answering #t.
Value b_char_ready_p(int argc, Value *argv) {
  text_in_port("char-ready?", argc, argv, 0);
  return TRUE_V;
}

Value b_eof_object(int, Value *) { return EOF_V; }
Value b_eof_object_p(int, Value *argv) { return boolv(argv[0] == EOF_V); }

}  // namespace

// ---- files ------------------------------------------------------------------------

[[noreturn]] void file_error(std::string msg) {
  raise_value(make_error_obj(make_string(msg), NIL, intern("file-error")));
}

Value open_file(const char *who, Value path_v, bool output) {
  std::string path = arg_path(who, 1, path_v);
  FILE *fp = std::fopen(path.c_str(), output ? "w" : "r");
  if (!fp) file_error(fmt::format("{}: cannot open \"{}\": {}", who, path, std::strerror(errno)));
  return make_file_port(fp, output ? PORT_OUTPUT : PORT_INPUT, path);
}

namespace {

void close_port(Port *p) {
  if (p->closed) return;
  if (p->is_file) {
    if (p->fp == stdin || p->fp == stdout || p->fp == stderr) std::fflush(p->fp);
    else std::fclose(p->fp);
  }
  p->closed = 1;
}

Value b_open_input_file(int, Value *argv) { return open_file("open-input-file", argv[0], false); }
Value b_open_output_file(int, Value *argv) { return open_file("open-output-file", argv[0], true); }

Value b_close_port(int, Value *argv) {
  close_port(any_port("close-port", argv[0]));
  return UNSPEC;
}
Value b_close_input_port(int, Value *argv) {
  Port *p = any_port("close-input-port", argv[0]);
  if (!(p->kind & PORT_INPUT)) type_error("close-input-port", 1, "an input port", argv[0]);
  close_port(p);
  return UNSPEC;
}
Value b_close_output_port(int, Value *argv) {
  Port *p = any_port("close-output-port", argv[0]);
  if (!(p->kind & PORT_OUTPUT)) type_error("close-output-port", 1, "an output port", argv[0]);
  close_port(p);
  return UNSPEC;
}

// Calls PROC with PORT, closes PORT (also when PROC raises), returns PROC's result.
Value call_then_close(Value port, Value proc) {
  Value result;
  try {
    result = apply_proc(proc, 1, &port);
  } catch (...) {
    close_port(as<Port>(port));
    throw;
  }
  close_port(as<Port>(port));
  return result;
}

Value b_call_with_port(int, Value *argv) {
  any_port("call-with-port", argv[0]);
  return call_then_close(argv[0], arg_proc("call-with-port", 2, argv[1]));
}
Value b_call_with_output_file(int, Value *argv) {
  Value proc = arg_proc("call-with-output-file", 2, argv[1]);
  return call_then_close(open_file("call-with-output-file", argv[0], true), proc);
}
Value b_call_with_input_file(int, Value *argv) {
  Value proc = arg_proc("call-with-input-file", 2, argv[1]);
  return call_then_close(open_file("call-with-input-file", argv[0], false), proc);
}

Value with_file(const char *who, Value path, Value thunk_v, bool output) {
  Value thunk = arg_proc(who, 2, thunk_v);
  Value port = open_file(who, path, output);
  Value result;
  try {
    result = call_with_current_port(output, port, thunk);
  } catch (...) {
    close_port(as<Port>(port));
    throw;
  }
  close_port(as<Port>(port));
  return result;
}
Value b_with_output_to_file(int, Value *argv) {
  return with_file("with-output-to-file", argv[0], argv[1], true);
}
Value b_with_input_from_file(int, Value *argv) {
  return with_file("with-input-from-file", argv[0], argv[1], false);
}

Value b_file_exists_p(int, Value *argv) {
  std::string path = arg_path("file-exists?", 1, argv[0]);
  return boolv(access(path.c_str(), F_OK) == 0);
}

Value b_delete_file(int, Value *argv) {
  std::string path = arg_path("delete-file", 1, argv[0]);
  if (std::remove(path.c_str()) != 0)
    file_error(fmt::format("delete-file: cannot delete \"{}\": {}", path, std::strerror(errno)));
  return UNSPEC;
}

// ---- port predicates --------------------------------------------------------------

Value b_port_p(int, Value *argv) { return boolv(is_port(argv[0])); }
Value b_input_port_p(int, Value *argv) {
  return boolv(is_port(argv[0]) && (as<Port>(argv[0])->kind & PORT_INPUT));
}
Value b_output_port_p(int, Value *argv) {
  return boolv(is_port(argv[0]) && (as<Port>(argv[0])->kind & PORT_OUTPUT));
}
Value b_binary_port_p(int, Value *argv) { return boolv(is_port(argv[0]) && as<Port>(argv[0])->binary); }
Value b_textual_port_p(int, Value *argv) { return boolv(is_port(argv[0]) && !as<Port>(argv[0])->binary); }
Value b_input_port_open_p(int, Value *argv) {
  Port *p = any_port("input-port-open?", argv[0]);
  return boolv((p->kind & PORT_INPUT) && !p->closed);
}
Value b_output_port_open_p(int, Value *argv) {
  Port *p = any_port("output-port-open?", argv[0]);
  return boolv((p->kind & PORT_OUTPUT) && !p->closed);
}

// ---- process context (command-line lives in control.cpp, beside exit) -------------

Value b_get_environment_variable(int, Value *argv) {
  std::string name(string_view_of(from_ptr(arg_string("get-environment-variable", 1, argv[0]))));
  const char *v = std::getenv(name.c_str());
  bool changed = false;
  if (name == "TMPDIR") {
    const char *user = user_environment_tmpdir(&changed);
    if (changed) v = user;
  }
  return v ? make_string(v) : FALSE_V;
}

Value b_get_environment_variables(int, Value *) {
  Value r = NIL;
  bool changed = false;
  const char *user_tmpdir = user_environment_tmpdir(&changed);
  if (changed && user_tmpdir) r = cons(cons(make_string("TMPDIR"), make_string(user_tmpdir)), r);
  for (char **e = environ; e && *e; e++) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    if (changed && entry.substr(0, eq) == "TMPDIR") continue;
    r = cons(cons(make_string(entry.substr(0, eq)), make_string(entry.substr(eq + 1))), r);
  }
  return r;
}

// ---- time ---------------------------------------------------------------------------

int64_t monotonic_micros() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}
Value b_current_second(int, Value *) {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return make_double(double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9);
}
Value b_current_jiffy(int, Value *) { return make_int(monotonic_micros()); }
Value b_jiffies_per_second(int, Value *) { return make_fixnum(1000000); }
Value b_now_micros(int, Value *) { return make_int(monotonic_micros()); }

BuiltinRegistrar io_registrar([] {
  init_ports();  // binds current-input-port, current-output-port, current-error-port
  defbuiltin("display", 1, 2, b_display, "(display X [PORT]) strings and chars raw");
  defbuiltin("write", 1, 2, b_write, "(write X [PORT]) readable form");
  defbuiltin("write-shared", 1, 2, b_write_shared,
             "(write-shared X [PORT]) write, labelling shared structure too");
  defbuiltin("write-simple", 1, 2, b_write_simple, "(write-simple X [PORT]) write (cycles still get labels)");
  defbuiltin("newline", 0, 1, b_newline, "(newline [PORT])");
  defbuiltin("write-char", 1, 2, b_write_char, "(write-char C [PORT])");
  defbuiltin("write-string", 1, 4, b_write_string, "(write-string S [PORT [START [END]]])");
  defbuiltin("print", 0, -1, b_print, "(print X ...) display forms separated by spaces, then a newline");
  defbuiltin("println", 0, -1, b_println,
             "(println X ...) display forms separated by spaces, then a newline");
  defbuiltin("flush-output-port", 0, 1, b_flush_output_port, "(flush-output-port [PORT])");
  defbuiltin("open-output-string", 0, 0, b_open_output_string, "(open-output-string) a string output port");
  defbuiltin("open-input-string", 1, 1, b_open_input_string, "(open-input-string S) a port reading S");
  defbuiltin("get-output-string", 1, 1, b_get_output_string, "(get-output-string PORT) text written so far");
  defbuiltin("with-output-to-string", 1, 1, b_with_output_to_string,
             "(with-output-to-string THUNK) what THUNK writes to the current output port");
  defbuiltin("call-with-output-string", 1, 1, b_call_with_output_string,
             "(call-with-output-string PROC) what PROC writes to the port it is given");
  defbuiltin("read", 0, 1, b_read, "(read [PORT]) the next datum, or the eof object");
  defbuiltin("read-char", 0, 1, b_read_char, "(read-char [PORT])");
  defbuiltin("peek-char", 0, 1, b_peek_char, "(peek-char [PORT])");
  defbuiltin("read-line", 0, 1, b_read_line, "(read-line [PORT]) a line without its newline, or eof");
  defbuiltin("read-string", 1, 2, b_read_string, "(read-string K [PORT]) up to K chars, or eof");
  defbuiltin("char-ready?", 0, 1, b_char_ready_p, "(char-ready? [PORT])");
  defbuiltin("eof-object", 0, 0, b_eof_object, "(eof-object)");
  defbuiltin("eof-object?", 1, 1, b_eof_object_p, "(eof-object? X)");
  defbuiltin("open-input-file", 1, 1, b_open_input_file, "(open-input-file PATH)");
  defbuiltin("open-output-file", 1, 1, b_open_output_file, "(open-output-file PATH) truncates PATH");
  defbuiltin("close-port", 1, 1, b_close_port, "(close-port PORT)");
  defbuiltin("close-input-port", 1, 1, b_close_input_port, "(close-input-port PORT)");
  defbuiltin("close-output-port", 1, 1, b_close_output_port, "(close-output-port PORT)");
  defbuiltin("call-with-port", 2, 2, b_call_with_port, "(call-with-port PORT PROC) then closes PORT");
  defbuiltin("call-with-output-file", 2, 2, b_call_with_output_file, "(call-with-output-file PATH PROC)");
  defbuiltin("call-with-input-file", 2, 2, b_call_with_input_file, "(call-with-input-file PATH PROC)");
  defbuiltin("with-output-to-file", 2, 2, b_with_output_to_file, "(with-output-to-file PATH THUNK)");
  defbuiltin("with-input-from-file", 2, 2, b_with_input_from_file, "(with-input-from-file PATH THUNK)");
  defbuiltin("file-exists?", 1, 1, b_file_exists_p, "(file-exists? PATH)");
  defbuiltin("delete-file", 1, 1, b_delete_file, "(delete-file PATH)");
  defbuiltin("port?", 1, 1, b_port_p, "(port? X)");
  defbuiltin("input-port?", 1, 1, b_input_port_p, "(input-port? X)");
  defbuiltin("output-port?", 1, 1, b_output_port_p, "(output-port? X)");
  defbuiltin("textual-port?", 1, 1, b_textual_port_p, "(textual-port? X) a port that is not binary");
  defbuiltin("binary-port?", 1, 1, b_binary_port_p,
             "(binary-port? X) a bytevector port or a binary file port");
  defbuiltin("input-port-open?", 1, 1, b_input_port_open_p, "(input-port-open? PORT)");
  defbuiltin("output-port-open?", 1, 1, b_output_port_open_p, "(output-port-open? PORT)");
  defbuiltin("get-environment-variable", 1, 1, b_get_environment_variable,
             "(get-environment-variable NAME) a string or #f");
  defbuiltin("get-environment-variables", 0, 0, b_get_environment_variables,
             "(get-environment-variables) an alist of (NAME . VALUE)");
  defbuiltin("current-second", 0, 0, b_current_second, "(current-second) seconds since the epoch, a float");
  defbuiltin("current-jiffy", 0, 0, b_current_jiffy, "(current-jiffy) monotonic clock in microseconds");
  defbuiltin("jiffies-per-second", 0, 0, b_jiffies_per_second, "(jiffies-per-second) 1000000");
  defbuiltin("now-micros", 0, 0, b_now_micros, "(now-micros) monotonic clock in microseconds");
});

}  // namespace
}  // namespace kiln

// port.h — input and output ports.
//
// Invariant: all Lisp-visible output goes through port_write, and writing to
// the error port first flushes the standard output port, so merged stdout and
// stderr keep the order of events (docs/cli.md). String ports keep their bytes in a
// GC String; file ports own a FILE* that close-port (or exit) releases.
#pragma once
#include <cstdio>
#include <string_view>

#include "runtime/object.h"

namespace kiln {

enum PortKind : uint8_t { PORT_INPUT = 1, PORT_OUTPUT = 2 };

struct Port {
  ObjHeader h;
  uint8_t kind;     // PortKind
  uint8_t is_file;  // 1: fp is used; 0: string port
  uint8_t closed;
  uint8_t is_stderr;
  uint8_t binary;  // 1: a binary port (bytevector or binary file), for binary-port? and the u8 procedures
  FILE *fp;
  Value str;    // input: the String or Bytevector read; output: the byte buffer
  int64_t pos;  // read position in an input string or bytevector port
  int peeked;   // file input: one char (byte, for a binary port) of lookahead, -2 = none
  Value name;   // string, for messages
  // Input: where the next char comes from (1-based), for read errors.
  uint32_t line, col;
  uint32_t source_id;  // srcloc file id naming this port; 0 until `read` first needs it
  uint8_t fold_case;   // #!fold-case was read from this port
  uint8_t after_cr;    // the last char read was CR: an LF now ends the same line (CR LF)
};
inline bool is_port(Value v) { return has_type(v, T_PORT); }

Value make_file_port(FILE *fp, PortKind kind, std::string_view name);
Value make_string_input_port(std::string_view utf8);
Value make_string_input_port_of(Value string);  // reads a copy of the String
Value make_bytevector_input_port(const uint8_t *bytes, int64_t n);
Value make_string_output_port();  // textual; binary = 1 makes it a bytevector port
// What an output string or bytevector port has collected (UTF-8 for text).
std::string_view port_output_bytes(Port *p);

// Textual input: the next character (a Unicode scalar value), -1 at end;
// reading advances line/col. Invalid UTF-8 in a file raises an error naming the
// port, line and column.
int port_read_char(Port *p);
int port_peek_char(Port *p);
// Binary input: the next byte, -1 at end.
int port_read_byte(Port *p);
int port_peek_byte(Port *p);
void port_write(Port *p, std::string_view s);
// Replaces fgetc for stdin's bytes (-1 at end; nullptr restores stdio). The
// REPL on a terminal reads them itself, so Ctrl-C can end a (read-line) that
// is waiting for a line; nothing else may then read stdin through stdio.
void set_stdin_reader(int (*reader)());
void port_flush(Port *p);

// Parameters of the current ports (with-output-to-string rebinds output).
Value current_input_port();
Value current_output_port();
Value current_error_port();
void set_current_output_port(Value p);
void set_current_input_port(Value p);
void init_ports();

}  // namespace kiln

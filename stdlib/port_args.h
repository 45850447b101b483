// port_args.h — the port argument checks the I/O builtins share (io.cpp defines
// them; bytevectors.cpp's binary ports use them too).
//
// Invariant: a port these return is open; a missing optional port argument means
// the current input or output port, and an argument of the wrong kind is a
// type error naming the builtin and the argument's position.
#pragma once
#include "runtime/port.h"

namespace kiln {

Port *checked_open(const char *who, Port *p);
// argv[idx] when argc > idx (it must be an output port), else the current output port.
Port *out_port(const char *who, int argc, Value *argv, int idx);
// argv[idx] when argc > idx (it must be an input port), else the current input port.
Port *in_port(const char *who, int argc, Value *argv, int idx);
// in_port for the procedures that read characters: a binary port is a type error.
Port *text_in_port(const char *who, int argc, Value *argv, int idx);
Port *any_port(const char *who, Value v);
// Opens PATH (a string argument) for reading or (truncating) writing; a failure
// raises a file-error naming `who`, the path and the system's reason.
Value open_file(const char *who, Value path, bool output);
// Raises a file-error condition with this message.
[[noreturn]] void file_error(std::string msg);

}  // namespace kiln

// bytevectors.cpp — R7RS bytevectors and binary ports (docs/builtins.md,
// "Bytevectors").
//
// Invariants: a bytevector's length is fixed, so an index checked once stays
// valid; every index and byte is checked with the docs/builtins.md range
// message. A binary port is a bytevector port or a file port with its `binary`
// flag set: the u8 procedures accept only binary ports, and they read bytes, not
// characters. string->utf8 encodes a string's characters as UTF-8; utf8->string
// accepts only valid UTF-8.
#include <cstring>

#include "runtime/eval.h"
#include "runtime/port.h"
#include "runtime/utf8.h"
#include "stdlib/builtins.h"
#include "stdlib/port_args.h"

namespace kiln {

namespace {

Bytevector *arg_bytevector(const char *who, int pos, Value v) {
  if (!is_bytevector(v)) type_error(who, pos, "a bytevector", v);
  return as<Bytevector>(v);
}

uint8_t arg_byte(const char *who, int pos, Value v) {
  if (!is_int(v) || int_of(v) < 0 || int_of(v) > 255)
    type_error(who, pos, "a byte (an integer from 0 to 255)", v);
  return uint8_t(int_of(v));
}

int64_t byte_index(const char *who, int pos, Value k, int64_t len) {
  int64_t i = arg_int(who, pos, k);
  if (i < 0 || i >= len) range_error(who, i, "bytevector", len);
  return i;
}

Value b_bytevector_p(int, Value *a) { return boolv(is_bytevector(a[0])); }

Value b_make_bytevector(int argc, Value *a) {
  int64_t k = arg_index("make-bytevector", 1, a[0]);
  return make_bytevector(k, argc > 1 ? arg_byte("make-bytevector", 2, a[1]) : 0);
}

Value b_bytevector(int argc, Value *a) {
  Value r = make_bytevector(argc, 0);
  for (int i = 0; i < argc; i++) as<Bytevector>(r)->bytes[i] = arg_byte("bytevector", i + 1, a[i]);
  return r;
}

Value b_bytevector_u8_ref(int, Value *a) {
  Bytevector *b = arg_bytevector("bytevector-u8-ref", 1, a[0]);
  return make_fixnum(b->bytes[byte_index("bytevector-u8-ref", 2, a[1], b->len)]);
}

Value b_bytevector_u8_set(int, Value *a) {
  Bytevector *b = arg_bytevector("bytevector-u8-set!", 1, a[0]);
  int64_t i = byte_index("bytevector-u8-set!", 2, a[1], b->len);
  b->bytes[i] = arg_byte("bytevector-u8-set!", 3, a[2]);
  return UNSPEC;
}

Value b_bytevector_length(int, Value *a) {
  return make_int(arg_bytevector("bytevector-length", 1, a[0])->len);
}

Value b_bytevector_copy(int argc, Value *a) {
  Bytevector *b = arg_bytevector("bytevector-copy", 1, a[0]);
  Span s = optional_span("bytevector-copy", argc, a, 1, b->len, "bytevector");
  return make_bytevector_from(b->bytes + s.start, s.end - s.start);
}

// (bytevector-copy! to at from [start [end]]); the ranges may overlap.
Value b_bytevector_copy_bang(int argc, Value *a) {
  const char *who = "bytevector-copy!";
  Bytevector *to = arg_bytevector(who, 1, a[0]);
  int64_t at = arg_int(who, 2, a[1]);
  Bytevector *from = arg_bytevector(who, 3, a[2]);
  Span s = optional_span(who, argc, a, 3, from->len, "bytevector");
  if (at < 0 || at > to->len) range_error(who, at, "bytevector", to->len);
  if (to->len - at < s.end - s.start)
    throw_errorf("{}: {} bytes do not fit at index {} of a bytevector of length {}", who, s.end - s.start, at,
                 to->len);
  if (s.end > s.start) std::memmove(to->bytes + at, from->bytes + s.start, size_t(s.end - s.start));
  return UNSPEC;
}

Value b_bytevector_append(int argc, Value *a) {
  int64_t n = 0;
  for (int i = 0; i < argc; i++) n += arg_bytevector("bytevector-append", i + 1, a[i])->len;
  Value r = make_bytevector(n, 0);
  int64_t at = 0;
  for (int i = 0; i < argc; i++) {
    Bytevector *b = as<Bytevector>(a[i]);
    if (b->len) std::memcpy(as<Bytevector>(r)->bytes + at, b->bytes, size_t(b->len));
    at += b->len;
  }
  return r;
}

Value b_utf8_to_string(int argc, Value *a) {
  Bytevector *b = arg_bytevector("utf8->string", 1, a[0]);
  Span s = optional_span("utf8->string", argc, a, 1, b->len, "bytevector");
  std::string_view bytes(reinterpret_cast<const char *>(b->bytes + s.start), size_t(s.end - s.start));
  size_t bad = utf8_invalid_offset(bytes);
  if (bad < bytes.size())
    throw_errorf("utf8->string: invalid UTF-8 at byte {} (0x{:02X})", s.start + int64_t(bad),
                 (unsigned char)bytes[bad]);
  return make_string(bytes);
}

// START and END count characters; the bytes are those of the UTF-8 text between.
Value b_string_to_utf8(int argc, Value *a) {
  String *str = arg_string("string->utf8", 1, a[0]);
  Span s = optional_span("string->utf8", argc, a, 1, str->len, "string");
  Value part = s.start == 0 && s.end == str->len ? a[0] : string_slice(str, s.start, s.end);
  std::string_view text = string_view_of(part);
  return make_bytevector_from(reinterpret_cast<const uint8_t *>(text.data()), int64_t(text.size()));
}

// ---- binary ports ------------------------------------------------------------------

Port *binary_in(const char *who, int argc, Value *argv, int idx) {
  Port *p = in_port(who, argc, argv, idx);
  if (!p->binary) {
    if (argc > idx) type_error(who, idx + 1, "a binary input port", argv[idx]);
    throw_errorf("{}: the current input port is not a binary port", who);
  }
  return p;
}

Port *binary_out(const char *who, int argc, Value *argv, int idx) {
  Port *p = out_port(who, argc, argv, idx);
  if (!p->binary) {
    if (argc > idx) type_error(who, idx + 1, "a binary output port", argv[idx]);
    throw_errorf("{}: the current output port is not a binary port", who);
  }
  return p;
}

Value b_open_input_bytevector(int, Value *a) {
  Bytevector *b = arg_bytevector("open-input-bytevector", 1, a[0]);
  return make_bytevector_input_port(b->bytes, b->len);
}

Value b_open_output_bytevector(int, Value *) {
  Value p = make_string_output_port();
  as<Port>(p)->binary = 1;
  return p;
}

Value b_get_output_bytevector(int, Value *a) {
  Value v = a[0];
  if (!is_port(v) || as<Port>(v)->is_file || !as<Port>(v)->binary || !(as<Port>(v)->kind & PORT_OUTPUT))
    type_error("get-output-bytevector", 1, "a bytevector output port", v);
  std::string_view bytes = port_output_bytes(as<Port>(v));
  return make_bytevector_from(reinterpret_cast<const uint8_t *>(bytes.data()), int64_t(bytes.size()));
}

Value b_open_binary_input_file(int, Value *a) {
  Value p = open_file("open-binary-input-file", a[0], false);
  as<Port>(p)->binary = 1;
  return p;
}

Value b_open_binary_output_file(int, Value *a) {
  Value p = open_file("open-binary-output-file", a[0], true);
  as<Port>(p)->binary = 1;
  return p;
}

Value b_read_u8(int argc, Value *a) {
  int c = port_read_byte(binary_in("read-u8", argc, a, 0));
  return c < 0 ? EOF_V : make_fixnum(c);
}

Value b_peek_u8(int argc, Value *a) {
  int c = port_peek_byte(binary_in("peek-u8", argc, a, 0));
  return c < 0 ? EOF_V : make_fixnum(c);
}

Value b_u8_ready_p(int argc, Value *a) {
  binary_in("u8-ready?", argc, a, 0);
  return TRUE_V;  // string ports are always ready; a file port's read may block, as char-ready? says
}

// (read-bytevector k [port]): up to k bytes, or the eof object when none are left.
Value b_read_bytevector(int argc, Value *a) {
  int64_t k = arg_index("read-bytevector", 1, a[0]);
  Port *p = binary_in("read-bytevector", argc, a, 1);
  std::string got;
  for (int64_t i = 0; i < k; i++) {
    if ((i & 0xFFFF) == 0xFFFF) check_interrupt();
    int c = port_read_byte(p);
    if (c < 0) break;
    got += char(c);
  }
  if (got.empty() && k > 0) return EOF_V;
  return make_bytevector_from(reinterpret_cast<const uint8_t *>(got.data()), int64_t(got.size()));
}

// (read-bytevector! bv [port [start [end]]]): the count read into bv, or eof.
Value b_read_bytevector_bang(int argc, Value *a) {
  Bytevector *b = arg_bytevector("read-bytevector!", 1, a[0]);
  Port *p = binary_in("read-bytevector!", argc, a, 1);
  Span s = optional_span("read-bytevector!", argc, a, 2, b->len, "bytevector");
  int64_t n = 0;
  for (int64_t i = s.start; i < s.end; i++, n++) {
    if ((n & 0xFFFF) == 0xFFFF) check_interrupt();
    int c = port_read_byte(p);
    if (c < 0) break;
    b->bytes[i] = uint8_t(c);
  }
  if (n == 0 && s.end > s.start) return EOF_V;
  return make_int(n);
}

Value b_write_u8(int argc, Value *a) {
  char c = char(arg_byte("write-u8", 1, a[0]));
  port_write(binary_out("write-u8", argc, a, 1), std::string_view(&c, 1));
  return UNSPEC;
}

// (write-bytevector bv [port [start [end]]])
Value b_write_bytevector(int argc, Value *a) {
  Bytevector *b = arg_bytevector("write-bytevector", 1, a[0]);
  Port *p = binary_out("write-bytevector", argc, a, 1);
  Span s = optional_span("write-bytevector", argc, a, 2, b->len, "bytevector");
  port_write(p,
             std::string_view(reinterpret_cast<const char *>(b->bytes + s.start), size_t(s.end - s.start)));
  return UNSPEC;
}

}  // namespace

static BuiltinRegistrar bytevectors_registrar([] {
  defbuiltin("bytevector?", 1, 1, b_bytevector_p, "(bytevector? x): whether x is a bytevector.");
  defbuiltin("make-bytevector", 1, 2, b_make_bytevector,
             "(make-bytevector k [byte]): k bytes, each byte (default 0).");
  defbuiltin("bytevector", 0, -1, b_bytevector, "(bytevector byte ...): a new bytevector of those bytes.");
  defbuiltin("bytevector-u8-ref", 2, 2, b_bytevector_u8_ref, "(bytevector-u8-ref bv k): byte k of bv.");
  defbuiltin("bytevector-u8-set!", 3, 3, b_bytevector_u8_set,
             "(bytevector-u8-set! bv k byte): stores byte as byte k of bv.");
  defbuiltin("bytevector-length", 1, 1, b_bytevector_length, "(bytevector-length bv): the number of bytes.");
  defbuiltin("bytevector-copy", 1, 3, b_bytevector_copy,
             "(bytevector-copy bv [start [end]]): a new bytevector of those bytes.");
  defbuiltin("bytevector-copy!", 3, 5, b_bytevector_copy_bang,
             "(bytevector-copy! to at from [start [end]]): copies from's bytes into to at index at.");
  defbuiltin("bytevector-append", 0, -1, b_bytevector_append,
             "(bytevector-append bv ...): a new bytevector of all the bytes.");
  defbuiltin("utf8->string", 1, 3, b_utf8_to_string,
             "(utf8->string bv [start [end]]): a string of those bytes (decoded as UTF-8 text).");
  defbuiltin("string->utf8", 1, 3, b_string_to_utf8,
             "(string->utf8 s [start [end]]): the UTF-8 bytes of s (its chars' bytes).");
  defbuiltin("open-input-bytevector", 1, 1, b_open_input_bytevector,
             "(open-input-bytevector bv): a binary input port reading bv's bytes.");
  defbuiltin("open-output-bytevector", 0, 0, b_open_output_bytevector,
             "(open-output-bytevector): a binary output port collecting bytes.");
  defbuiltin("get-output-bytevector", 1, 1, b_get_output_bytevector,
             "(get-output-bytevector port): the bytes written to port so far.");
  defbuiltin("open-binary-input-file", 1, 1, b_open_binary_input_file,
             "(open-binary-input-file path): a binary input port on the file.");
  defbuiltin("open-binary-output-file", 1, 1, b_open_binary_output_file,
             "(open-binary-output-file path): a binary output port on the file (truncated).");
  defbuiltin("read-u8", 0, 1, b_read_u8, "(read-u8 [port]): the next byte, or the eof object.");
  defbuiltin("peek-u8", 0, 1, b_peek_u8, "(peek-u8 [port]): the next byte without consuming it, or eof.");
  defbuiltin("u8-ready?", 0, 1, b_u8_ready_p,
             "(u8-ready? [port]): #t (a read never blocks on a bytevector).");
  defbuiltin("read-bytevector", 1, 2, b_read_bytevector,
             "(read-bytevector k [port]): up to k bytes as a bytevector, or eof.");
  defbuiltin("read-bytevector!", 1, 4, b_read_bytevector_bang,
             "(read-bytevector! bv [port [start [end]]]): bytes read into bv, their count or eof.");
  defbuiltin("write-u8", 1, 2, b_write_u8, "(write-u8 byte [port]): writes one byte.");
  defbuiltin("write-bytevector", 1, 4, b_write_bytevector,
             "(write-bytevector bv [port [start [end]]]): writes those bytes.");
});

}  // namespace kiln

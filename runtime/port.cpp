// port.cpp — ports (runtime/port.h): stdio-backed file ports and GC string ports.
//
// The standard output port writes through stdio's stdout buffer (fast for the
// common case of a script printing a lot); the error port flushes stdout, then
// writes and flushes stderr, so merged output keeps its order. The current
// ports are R7RS parameter objects bound to current-input-port,
// current-output-port and current-error-port, so `parameterize` rebinds them
// and with-output-to-string sets their value directly.
#include "runtime/port.h"

#include <cstring>

#include "runtime/args.h"
#include "runtime/error.h"
#include "runtime/utf8.h"

namespace kiln {

// Parameter objects holding the current ports. Static storage is scanned by
// the collector, so these are roots.
static Value g_current_input = NOVALUE;
static Value g_current_output = NOVALUE;
static Value g_current_error = NOVALUE;

static void close_unreachable_file(void *obj, void *) {
  Port *p = static_cast<Port *>(obj);
  if (!p->closed && p->fp) std::fclose(p->fp);
  p->closed = 1;
}

static Port *new_port(PortKind kind, std::string_view name) {
  Port *p = alloc_obj<Port>(T_PORT);
  p->kind = kind;
  p->is_file = 0;
  p->closed = 0;
  p->is_stderr = 0;
  p->binary = 0;
  p->fp = nullptr;
  p->str = NOVALUE;
  p->pos = 0;
  p->peeked = -2;
  p->name = make_string(name);
  p->line = 1;
  p->col = 1;
  p->source_id = 0;
  p->fold_case = 0;
  p->after_cr = 0;
  return p;
}

Value make_file_port(FILE *fp, PortKind kind, std::string_view name) {
  Port *p = new_port(kind, name);
  p->is_file = 1;
  p->fp = fp;
  p->is_stderr = fp == stderr;
  // A file port dropped without close-port still releases its FILE*.
  if (fp != stdin && fp != stdout && fp != stderr)
    GC_register_finalizer_no_order(p, close_unreachable_file, nullptr, nullptr, nullptr);
  return from_ptr(p);
}

Value make_string_input_port(std::string_view utf8) {
  Port *p = new_port(PORT_INPUT, "string");
  p->str = make_string(utf8);
  return from_ptr(p);
}

Value make_string_input_port_of(Value string) {
  Port *p = new_port(PORT_INPUT, "string");
  const String *s = as<String>(string);
  p->str = string_slice(s, 0, s->len);
  return from_ptr(p);
}

Value make_bytevector_input_port(const uint8_t *bytes, int64_t n) {
  Port *p = new_port(PORT_INPUT, "bytevector");
  p->binary = 1;
  p->str = make_bytevector_from(bytes, n);
  return from_ptr(p);
}

// The bytes an output string or bytevector port collects, doubling as it grows.
struct ByteBuffer {
  ObjHeader h;
  int64_t len, cap;
  char *data;  // GC atomic
};

Value make_string_output_port() {
  Port *p = new_port(PORT_OUTPUT, "string");
  ByteBuffer *b = alloc_obj<ByteBuffer>(T_OPAQUE);
  b->len = 0;
  b->cap = 0;
  b->data = nullptr;
  p->str = from_ptr(b);
  return from_ptr(p);
}

std::string_view port_output_bytes(Port *p) {
  const ByteBuffer *b = as<ByteBuffer>(p->str);
  return {b->data, size_t(b->len)};
}

static void buffer_append(ByteBuffer *b, std::string_view s) {
  if (s.size() > uint64_t(b->cap - b->len)) {
    uint64_t need = alloc_bytes(uint64_t(b->len), 1, s.size());
    if (need > uint64_t(INT64_MAX) - 1) gc_out_of_memory_for(need, 1, 1);
    // Doubling, but never past what int64 lengths can count.
    int64_t cap = b->cap < (int64_t(1) << 61) ? b->cap * 2 + 64 : 0;
    if (uint64_t(cap) < need) cap = int64_t(need);
    char *d = static_cast<char *>(gc_alloc_atomic(size_t(cap)));
    if (b->len > 0) std::memcpy(d, b->data, size_t(b->len));
    b->data = d;
    b->cap = cap;
  }
  std::memcpy(b->data + b->len, s.data(), s.size());
  b->len += int64_t(s.size());
}

// Null: stdin is read through stdio like any file.
static int (*g_stdin_reader)() = nullptr;

void set_stdin_reader(int (*reader)()) { g_stdin_reader = reader; }

static int file_getc(Port *p) {
  if (p->fp == stdin) {
    std::fflush(stdout);  // a prompt printed before reading must show
    if (g_stdin_reader) return g_stdin_reader();
  }
  int c = std::fgetc(p->fp);
  return c == EOF ? -1 : c;
}

[[noreturn]] static void invalid_utf8(Port *p, int byte) {
  throw_errorf("invalid UTF-8 in port \"{}\" at line {}, column {} (byte 0x{:02X})", string_view_of(p->name),
               p->line, p->col, byte);
}

// The next character of a textual file port, decoded from its UTF-8 bytes.
static int file_get_char(Port *p) {
  int lead = file_getc(p);
  if (lead < 0x80) return lead;  // ASCII, or -1 at end
  int len = utf8_sequence_length((unsigned char)lead);
  if (len == 0) invalid_utf8(p, lead);
  unsigned char bytes[4] = {(unsigned char)lead};
  for (int i = 1; i < len; i++) {
    int c = file_getc(p);
    if (c < 0 || (c & 0xC0) != 0x80) {
      // The byte that broke the sequence may start the next character.
      if (c >= 0 && p->fp != stdin) std::ungetc(c, p->fp);
      invalid_utf8(p, lead);
    }
    bytes[i] = (unsigned char)c;
  }
  int32_t c = utf8_decode_sequence(bytes, len);
  if (c < 0) invalid_utf8(p, lead);
  return c;
}

static int next_char(Port *p) {
  if (!p->is_file) {
    const String *s = as<String>(p->str);
    return p->pos < s->len ? int(string_char(s, p->pos++)) : -1;
  }
  if (p->peeked != -2) {
    int c = p->peeked;
    p->peeked = -2;
    return c;
  }
  return file_get_char(p);
}

[[noreturn]] static void not_textual() { throw_error("cannot read characters from a binary port"); }

int port_read_char(Port *p) {
  if (p->closed) throw_error("read from a closed port");
  if (p->binary) not_textual();
  int c = next_char(p);
  // LF, CR LF and CR each end one line (R7RS 7.1.1).
  if (c == '\r' || (c == '\n' && !p->after_cr)) {
    p->line++;
    p->col = 1;
  } else if (c >= 0 && c != '\n') {
    p->col++;
  }
  p->after_cr = c == '\r';
  return c;
}

int port_peek_char(Port *p) {
  if (p->closed) throw_error("read from a closed port");
  if (p->binary) not_textual();
  if (!p->is_file) {
    const String *s = as<String>(p->str);
    return p->pos < s->len ? int(string_char(s, p->pos)) : -1;
  }
  if (p->peeked == -2) p->peeked = file_get_char(p);
  return p->peeked;
}

int port_read_byte(Port *p) {
  if (p->closed) throw_error("read from a closed port");
  if (!p->is_file) {
    const Bytevector *b = as<Bytevector>(p->str);
    return p->pos < b->len ? b->bytes[p->pos++] : -1;
  }
  if (p->peeked != -2) {
    int c = p->peeked;
    p->peeked = -2;
    return c;
  }
  return file_getc(p);
}

int port_peek_byte(Port *p) {
  if (p->closed) throw_error("read from a closed port");
  if (!p->is_file) {
    const Bytevector *b = as<Bytevector>(p->str);
    return p->pos < b->len ? b->bytes[p->pos] : -1;
  }
  if (p->peeked == -2) p->peeked = file_getc(p);
  return p->peeked;
}

void port_write(Port *p, std::string_view s) {
  if (p->closed) throw_error("write to a closed port");
  if (!p->is_file) {
    buffer_append(as<ByteBuffer>(p->str), s);
    return;
  }
  if (p->is_stderr) std::fflush(stdout);
  std::fwrite(s.data(), 1, s.size(), p->fp);
  if (p->is_stderr) std::fflush(p->fp);
}

void port_flush(Port *p) {
  if (p->is_file && !p->closed && (p->kind & PORT_OUTPUT)) std::fflush(p->fp);
}

static Value make_port_parameter(Value port) {
  Parameter *param = alloc_obj<Parameter>(T_PARAMETER);
  param->value = port;
  param->converter = FALSE_V;
  return from_ptr(param);
}

Value current_input_port() { return as<Parameter>(g_current_input)->value; }
Value current_output_port() { return as<Parameter>(g_current_output)->value; }
Value current_error_port() { return as<Parameter>(g_current_error)->value; }
void set_current_output_port(Value p) { as<Parameter>(g_current_output)->value = p; }
void set_current_input_port(Value p) { as<Parameter>(g_current_input)->value = p; }

// Idempotent: both init_runtime and the io builtins' registrar may call it.
void init_ports() {
  if (g_current_output != NOVALUE) return;
  g_current_input = make_port_parameter(make_file_port(stdin, PORT_INPUT, "stdin"));
  g_current_output = make_port_parameter(make_file_port(stdout, PORT_OUTPUT, "stdout"));
  g_current_error = make_port_parameter(make_file_port(stderr, PORT_OUTPUT, "stderr"));
  defglobal("current-input-port", g_current_input);
  defglobal("current-output-port", g_current_output);
  defglobal("current-error-port", g_current_error);
}

}  // namespace kiln

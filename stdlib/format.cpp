// format.cpp — (format [DEST] FMT ARG...): SRFI-28's ~a ~s ~% ~~ plus SRFI-48's
// field widths and fixed-point numbers: ~Wa ~Ws ~Wd (right-aligned in W columns),
// ~d, ~f, ~Wf, ~,Nf, ~W,Nf (N digits after the point).
//
// Fixed-point text rounds the double's exact binary value to nearest, ties to even
// (fmt's "{:.Nf}", as C's printf): 0.125 with ~,2f is "0.12". A field never truncates:
// text wider than W is written whole, as SRFI-48 says.
#include <fmt/format.h>

#include <string>

#include "runtime/exact.h"
#include "runtime/port.h"
#include "runtime/printer.h"
#include "stdlib/builtins.h"

namespace kiln {
namespace {

// Larger fields or precisions are refused rather than allocated.
constexpr int kMaxField = 1000;

struct Directive {
  int width = -1;   // -1: none
  int digits = -1;  // -1: none
  char kind = 0;
  std::string_view text;  // "~W,Nk" as written, for messages
};

// Reads a run of decimal digits at fmt[i...]; -1 if there is none.
int read_count(const char *who, std::string_view fmt, size_t &i, size_t start) {
  if (i >= fmt.size() || fmt[i] < '0' || fmt[i] > '9') return -1;
  int n = 0;
  while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
    n = n * 10 + (fmt[i++] - '0');
    if (n > kMaxField) {
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') i++;
      throw_errorf("{}: ~{}: a width or digit count is at most {}", who,
                   fmt.substr(start, std::min(i + 1, fmt.size()) - start), kMaxField);
    }
  }
  return n;
}

// Parses the directive whose '~' is at fmt[i-1]; leaves i on its letter.
Directive parse_directive(const char *who, std::string_view fmt, size_t &i) {
  size_t start = i;
  Directive d;
  d.width = read_count(who, fmt, i, start);
  if (i < fmt.size() && fmt[i] == ',') {
    i++;
    d.digits = read_count(who, fmt, i, start);
    if (d.digits < 0) {
      if (i >= fmt.size()) throw_errorf("{}: format string ends inside ~{}", who, fmt.substr(start));
      throw_errorf("{}: ~{}: expected digits after ','", who, fmt.substr(start, i + 1 - start));
    }
  }
  if (i >= fmt.size()) {
    if (start == i) throw_errorf("{}: format string ends in '~'", who);
    throw_errorf("{}: format string ends inside ~{}", who, fmt.substr(start));
  }
  d.kind = fmt[i];
  d.text = fmt.substr(start, i + 1 - start);
  return d;
}

// Exact integers print exactly, with N zeros after the point; rationals and
// floats are rounded to N digits.
void append_fixed(std::string &out, Value v, int digits) {
  if (is_exact_integer(v)) {
    out += exact_to_string(v, 10);
    if (digits > 0) {
      out += '.';
      out.append(size_t(digits), '0');
    }
    return;
  }
  double x = number_as_double(v);
  if (x != x || x - x != 0) {  // NaN or infinite: Kiln's own spelling
    format_double(out, x);
    return;
  }
  fmt::format_to(std::back_inserter(out), "{:.{}f}", x, digits);
}

// Widths count characters: the UTF-8 bytes that start one.
void pad_left(std::string &out, size_t field_start, int width) {
  size_t len = 0;
  for (size_t i = field_start; i < out.size(); i++) len += ((unsigned char)out[i] & 0xC0) != 0x80;
  if (width > 0 && len < size_t(width)) out.insert(field_start, size_t(width) - len, ' ');
}

std::string expand_format(const char *who, std::string_view fmt, int argc, Value *args) {
  std::string out;
  int next = 0;
  auto take = [&] {
    if (next >= argc) throw_errorf("{}: too few arguments for the format string", who);
    return args[next++];
  };
  for (size_t i = 0; i < fmt.size(); i++) {
    if (fmt[i] != '~') {
      out += fmt[i];
      continue;
    }
    ++i;
    Directive d = parse_directive(who, fmt, i);
    size_t field = out.size();
    switch (d.kind) {
    case 'a':
    case 'A':
    case 's':
    case 'S':
    case 'd':
    case 'D': {
      if (d.digits >= 0) throw_errorf("{}: ~{}: only ~f takes digits after ','", who, d.text);
      Value v = take();
      if ((d.kind == 'd' || d.kind == 'D') && !is_number(v))
        throw_errorf("{}: ~{} needs a number, got {}", who, d.text, error_value_string(v));
      print_value_interruptible(out, v, d.kind == 's' || d.kind == 'S');
      break;
    }
    case 'f':
    case 'F': {
      Value v = take();
      if (is_number(v) && d.digits >= 0) append_fixed(out, v, d.digits);
      else if (is_number(v) || is_string(v)) print_value_interruptible(out, v, false);
      else throw_errorf("{}: ~{} needs a number or a string, got {}", who, d.text, error_value_string(v));
      break;
    }
    case '%':
    case '~':
      if (d.width >= 0 || d.digits >= 0) throw_errorf("{}: ~{}: ~{} takes no width", who, d.text, d.kind);
      out += d.kind == '%' ? '\n' : '~';
      break;
    default: throw_errorf("{}: unknown directive ~{}", who, d.text);
    }
    pad_left(out, field, d.width);
  }
  if (next < argc) throw_errorf("{}: too many arguments for the format string", who);
  return out;
}

// (format FMT ARG...) and (format #f FMT ARG...) return the text;
// (format #t FMT ARG...) prints it; (format PORT FMT ARG...) writes it to PORT.
Value b_format(int argc, Value *argv) {
  if (is_string(argv[0]))
    return make_string(expand_format("format", string_view_of(argv[0]), argc - 1, argv + 1));
  Value dest = argv[0];
  if (dest != TRUE_V && dest != FALSE_V && !(is_port(dest) && (as<Port>(dest)->kind & PORT_OUTPUT)))
    type_error("format", 1, "a string, #t, #f or an output port", dest);
  if (argc < 2) throw_error("format: missing format string");
  String *fmt = arg_string("format", 2, argv[1]);
  std::string text = expand_format("format", string_view_of(from_ptr(fmt)), argc - 2, argv + 2);
  if (dest == FALSE_V) return make_string(text);
  Value port = dest == TRUE_V ? current_output_port() : dest;
  if (as<Port>(port)->closed) throw_error("format: port is closed");
  port_write(as<Port>(port), text);
  return UNSPEC;
}

BuiltinRegistrar format_registrar([] {
  defbuiltin("format", 1, -1, b_format,
             "(format [DEST] FMT ARG...) ~a display, ~s write, ~d a number, ~% newline, ~~ tilde; "
             "~Wa ~Ws ~Wd ~Wf right-align in W columns, ~,Nf ~W,Nf N digits after the point; DEST #t "
             "prints, a port writes there, #f or none returns the string");
});

}  // namespace
}  // namespace kiln

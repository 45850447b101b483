#include "reader.h"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "error.h"
#include "eval_internal.h"
#include "srcloc.h"

namespace kiln {

namespace {

struct Open {
  char closer;
  uint32_t line, col;
};

class Reader {
 public:
  Reader(std::string_view text, uint32_t file) : text_(text), port_(nullptr), file_(file) {}
  Reader(Port *p, uint32_t file) : port_(p), file_(file) {}

  // Returns NOVALUE at end of input.
  Value read_top() {
    skip_atmosphere();
    if (peek() < 0) return NOVALUE;
    return read_datum();
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  Port *port_;
  uint32_t file_;
  uint32_t line_ = 1, col_ = 1;
  std::vector<Open> open_;

  int peek() {
    if (port_) return port_peek_char(port_);
    return pos_ < text_.size() ? (unsigned char)text_[pos_] : -1;
  }
  int peek2() {  // one further char; string sources only (ports: treated as absent)
    if (port_) return -1;
    return pos_ + 1 < text_.size() ? (unsigned char)text_[pos_ + 1] : -1;
  }
  int get() {
    int c = port_ ? port_read_char(port_) : (pos_ < text_.size() ? (unsigned char)text_[pos_++] : -1);
    if (c == '\n') {
      line_++;
      col_ = 1;
    } else if (c >= 0) {
      col_++;
    }
    return c;
  }

  SrcLoc here() const { return SrcLoc{file_, line_, col_}; }
  [[noreturn]] void fail(SrcLoc at, std::string_view msg) { throw_error_at(at, msg); }
  [[noreturn]] void fail_eof() {
    if (open_.empty()) fail(here(), "unexpected end of input");
    const Open &o = open_.front();
    fail(here(), fmt::format("unexpected end of input ({} unclosed '{}' opened at {}:{})", open_.size(),
                             o.closer == ')' ? '(' : '[', o.line, o.col));
  }

  static bool is_delimiter(int c) {
    return c < 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '(' || c == ')' ||
           c == '[' || c == ']' || c == '"' || c == ';';
  }

  void skip_block_comment(SrcLoc start) {
    int depth = 1;  // "#|" already consumed
    while (depth > 0) {
      int c = get();
      if (c < 0) fail(start, "unterminated block comment");
      if (c == '|' && peek() == '#') {
        get();
        depth--;
      } else if (c == '#' && peek() == '|') {
        get();
        depth++;
      }
    }
  }

  void skip_atmosphere() {
    for (;;) {
      int c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        get();
      } else if (c == ';') {
        while (peek() >= 0 && peek() != '\n') get();
      } else if (c == '#' && (peek2() == '|' || peek2() == ';')) {
        SrcLoc start = here();
        get();
        if (get() == '|') {
          skip_block_comment(start);
        } else {
          skip_atmosphere();
          if (peek() < 0) fail(start, "datum comment '#;' has no datum to skip");
          read_datum();
        }
      } else if (c == '#' && peek2() == '!' && pos_ == 0 && !port_) {
        while (peek() >= 0 && peek() != '\n') get();  // script line "#!/usr/bin/env kiln"
      } else {
        return;
      }
    }
  }

  Value with_loc(Value pair, SrcLoc loc) {
    set_loc(pair, loc);
    return pair;
  }

  Value read_datum() {
    skip_atmosphere();
    SrcLoc start = here();
    int c = peek();
    if (c < 0) fail_eof();
    switch (c) {
    case '(':
    case '[': get(); return read_list(c == '(' ? ')' : ']', start);
    case ')':
    case ']':
      get();
      if (!open_.empty() && open_.back().closer != c) {
        const Open &o = open_.back();
        fail(start, fmt::format("unexpected '{}' (expected '{}' to close '{}' opened at {}:{})", char(c),
                                o.closer, o.closer == ')' ? '(' : '[', o.line, o.col));
      }
      fail(start, fmt::format("unexpected '{}'", char(c)));
    case '\'': get(); return read_abbrev("quote", start);
    case '`': get(); return read_abbrev("quasiquote", start);
    case ',':
      get();
      if (peek() == '@') {
        get();
        return read_abbrev("unquote-splicing", start);
      }
      return read_abbrev("unquote", start);
    case '"': get(); return read_string(start);
    case '#': return read_hash(start);
    case '|': return read_token_value(start);
    default: return read_token_value(start);
    }
  }

  Value read_abbrev(const char *name, SrcLoc start) {
    skip_atmosphere();
    if (peek() < 0) fail_eof();
    if (peek() == ')' || peek() == ']') fail(here(), fmt::format("expected a datum after '{}'", name));
    Value d = read_datum();
    return with_loc(cons(intern(name), with_loc(cons(d, NIL), start)), start);
  }

  // `in_vector`: the elements of #( ... ), where a dotted tail is not allowed.
  Value read_list(char closer, SrcLoc start, bool in_vector = false) {
    if (stack_exhausted()) fail(start, "lists nested too deeply to read");
    open_.push_back(Open{closer, start.line, start.col});
    Value head = NIL, tail = NIL;
    for (;;) {
      skip_atmosphere();
      int c = peek();
      if (c < 0) fail_eof();
      if (c == ')' || c == ']') {
        if (c != closer) {
          SrcLoc at = here();
          fail(at, fmt::format("unexpected '{}' (expected '{}' to close '{}' opened at {}:{})", char(c),
                               closer, closer == ')' ? '(' : '[', start.line, start.col));
        }
        get();
        open_.pop_back();
        return head;
      }
      if (c == '.' && is_delimiter(peek2()) && !port_) {
        SrcLoc dot = here();
        get();
        return finish_dotted(head, tail, closer, dot, in_vector);
      }
      Value item;
      if (c == '.' && port_) {
        // Ports cannot look two ahead: read the token and see whether it is a lone dot.
        SrcLoc dot = here();
        std::string tok = read_token_text();
        if (tok == ".") return finish_dotted(head, tail, closer, dot, in_vector);
        item = token_value(tok, dot);
      } else {
        item = read_datum();
      }
      Value cell = with_loc(cons(item, NIL), start);
      if (head == NIL) head = cell;
      else as<Pair>(tail)->cdr = cell;
      tail = cell;
    }
  }

  // After the '.' of a dotted list: the one datum that ends it, then its closer.
  Value finish_dotted(Value head, Value tail, char closer, SrcLoc dot, bool in_vector) {
    if (in_vector) fail(dot, "unexpected '.' in a vector");
    if (head == NIL) fail(dot, "unexpected '.' at the start of a list");
    Value rest = read_datum();
    skip_atmosphere();
    int e = peek();
    if (e < 0) fail_eof();
    if (e != closer) fail(here(), "expected one datum after '.'");
    get();
    as<Pair>(tail)->cdr = rest;
    open_.pop_back();
    return head;
  }

  Value read_string(SrcLoc start) {
    std::string s;
    for (;;) {
      SrcLoc esc = here();  // a bad escape is reported at its backslash
      int c = get();
      if (c < 0) fail(start, "unterminated string");
      if (c == '"') return make_string(s);
      if (c != '\\') {
        s += char(c);
        continue;
      }
      int e = get();
      switch (e) {
      case 'n': s += '\n'; break;
      case 't': s += '\t'; break;
      case 'r': s += '\r'; break;
      case 'a': s += '\a'; break;
      case 'b': s += '\b'; break;
      case '0': s += '\0'; break;
      case '\\': s += '\\'; break;
      case '"': s += '"'; break;
      case '|': s += '|'; break;
      case 'x':
      case 'X': {
        std::string hex;
        while (peek() >= 0 && std::isxdigit(peek())) hex += char(get());
        if (peek() == ';') get();
        else fail(esc, "bad string escape: \\x must be followed by hex digits and ';'");
        if (hex.empty()) fail(esc, "bad string escape: \\x must be followed by hex digits and ';'");
        unsigned long v = std::strtoul(hex.c_str(), nullptr, 16);
        if (v > 255) fail(esc, fmt::format("character \\x{}; is beyond Latin-1", hex));
        s += char(v);
        break;
      }
      case '\n':
      case ' ':
      case '\t': {
        // Line continuation: skip trailing blanks, the newline, and leading blanks.
        int ch = e;
        while (ch == ' ' || ch == '\t') ch = get();
        if (ch != '\n' && ch >= 0) fail(esc, "bad string escape");
        while (peek() == ' ' || peek() == '\t') get();
        break;
      }
      case -1: fail(start, "unterminated string");
      default: fail(esc, fmt::format("unknown string escape '\\{}'", char(e)));
      }
    }
  }

  std::string read_token_text() {
    std::string t;
    while (!is_delimiter(peek())) {
      int c = get();
      if (c == '|') {  // |...| part of a symbol
        t += '|';
        for (;;) {
          int d = get();
          if (d < 0) fail(here(), "unterminated |symbol|");
          t += char(d);
          if (d == '|') break;
        }
        continue;
      }
      t += char(c);
    }
    return t;
  }

  Value read_hash(SrcLoc start) {
    get();  // '#'
    int c = peek();
    if (c == '(') {
      get();
      Value lst = read_list(')', start, true);
      int64_t n = 0;
      for (Value p = lst; is_pair(p); p = cdr(p)) n++;
      Value v = make_vector(n, NIL);
      int64_t i = 0;
      for (Value p = lst; is_pair(p); p = cdr(p)) as<Vector>(v)->items[i++] = car(p);
      return v;
    }
    if (c == '\\') {
      get();
      int first = get();
      if (first < 0) fail(start, "unexpected end of input in character literal");
      std::string name(1, char(first));
      while (!is_delimiter(peek())) name += char(get());
      if (name.size() == 1) return make_char((unsigned char)name[0]);
      static const struct {
        const char *n;
        uint32_t c;
      } names[] = {{"space", ' '},   {"newline", '\n'},  {"tab", '\t'},  {"nul", 0},       {"null", 0},
                   {"return", '\r'}, {"linefeed", '\n'}, {"alarm", 7},   {"backspace", 8}, {"delete", 127},
                   {"escape", 27},   {"altmode", 27},    {"rubout", 127}};
      for (auto &n : names)
        if (name == n.n) return make_char(n.c);
      if ((name[0] == 'x' || name[0] == 'U' || name[0] == 'u') && name.size() > 1) {
        char *end;
        unsigned long v = std::strtoul(name.c_str() + 1, &end, 16);
        if (*end == 0) {
          if (v > 255) fail(start, fmt::format("character #\\{} is beyond Latin-1", name));
          return make_char(uint32_t(v));
        }
      }
      fail(start, fmt::format("unknown character name #\\{}", name));
    }
    std::string tok = read_token_text();
    if (tok == "u8" && peek() == '(') {
      get();
      return bytevector_of(read_list(')', start, true), start);
    }
    if (tok == "t" || tok == "true") return TRUE_V;
    if (tok == "f" || tok == "false") return FALSE_V;
    if (tok == "eof") return EOF_V;
    if (!tok.empty() && (tok[0] == 'x' || tok[0] == 'X' || tok[0] == 'b' || tok[0] == 'B' || tok[0] == 'o' ||
                         tok[0] == 'O' || tok[0] == 'd' || tok[0] == 'D' || tok[0] == 'e' || tok[0] == 'i')) {
      Value v = parse_prefixed_number(tok);
      if (v != NOVALUE) return v;
    }
    if (!tok.empty() && tok[0] == '!') return read_datum_or_eof();  // #!fold-case and friends: ignored
    fail(start, fmt::format("unknown syntax '#{}'", tok));
  }

  // #u8( ... ): every element an exact integer 0..255.
  Value bytevector_of(Value lst, SrcLoc start) {
    int64_t n = 0;
    for (Value p = lst; is_pair(p); p = cdr(p)) {
      Value x = car(p);
      if (!is_int(x) || int_of(x) < 0 || int_of(x) > 255)
        fail(start,
             "a bytevector element must be an exact integer from 0 to 255, got " + error_value_string(x));
      n++;
    }
    Value v = make_bytevector(n, 0);
    int64_t i = 0;
    for (Value p = lst; is_pair(p); p = cdr(p)) as<Bytevector>(v)->bytes[i++] = uint8_t(int_of(car(p)));
    return v;
  }

  Value read_datum_or_eof() {
    skip_atmosphere();
    if (peek() < 0) return UNSPEC;
    return read_datum();
  }

  Value parse_prefixed_number(const std::string &tok) {
    int radix = 10;
    bool exact = false, inexact = false;
    size_t i = 0;
    while (i < tok.size()) {
      char p = char(std::tolower(tok[i]));
      if (p == 'x') radix = 16;
      else if (p == 'b') radix = 2;
      else if (p == 'o') radix = 8;
      else if (p == 'd') radix = 10;
      else if (p == 'e') exact = true;
      else if (p == 'i') inexact = true;
      else return NOVALUE;
      i++;
      if (i < tok.size() && tok[i] == '#') {
        i++;
        continue;
      }
      break;
    }
    Value v = parse_number(tok.substr(i), radix);
    if (v == NOVALUE) return NOVALUE;
    if (inexact && is_int(v)) return make_double(double(int_of(v)));
    if (exact && is_double(v)) {
      double d = double_of(v);
      if (d == (double)(int64_t)d) return make_int(int64_t(d));
      return NOVALUE;
    }
    return v;
  }

  // A number in `radix`, or NOVALUE if `t` is not a number. Integer literals that
  // do not fit 64 bits are read errors (raised by the caller with a location).
  Value parse_number(const std::string &t, int radix) {
    if (t.empty()) return NOVALUE;
    if (t == "+inf.0") return make_double(__builtin_inf());
    if (t == "-inf.0") return make_double(-__builtin_inf());
    if (t == "+nan.0" || t == "-nan.0") return make_double(__builtin_nan(""));
    size_t i = 0;
    if (t[0] == '+' || t[0] == '-') i = 1;
    if (i == t.size()) return NOVALUE;
    bool all_digits = true;
    for (size_t j = i; j < t.size(); j++) {
      int c = std::tolower((unsigned char)t[j]);
      int d = std::isdigit(c) ? c - '0' : (c >= 'a' && c <= 'z') ? c - 'a' + 10 : 99;
      if (d >= radix) {
        all_digits = false;
        break;
      }
    }
    if (all_digits) {
      errno = 0;
      char *end;
      long long n = std::strtoll(t.c_str(), &end, radix);
      if (errno == ERANGE) return FALSE_V;  // marker: out of range
      return make_int(n);
    }
    if (radix != 10) return NOVALUE;
    // Decimal float: digits with '.' and/or exponent; must contain a digit.
    bool digit = false;
    for (size_t j = i; j < t.size(); j++) {
      char c = t[j];
      if (std::isdigit((unsigned char)c)) digit = true;
      else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') return NOVALUE;
    }
    if (!digit) return NOVALUE;
    char *end;
    double d = std::strtod(t.c_str(), &end);
    if (*end != 0) return NOVALUE;
    return make_double(d);
  }

  Value token_value(const std::string &tok, SrcLoc start) {
    if (tok.empty()) fail(start, "unexpected character");
    if (tok[0] == '|' && tok.size() >= 2 && tok.back() == '|') return intern(tok.substr(1, tok.size() - 2));
    Value n = parse_number(tok, 10);
    if (n == FALSE_V) fail(start, fmt::format("integer literal {} is out of range", tok));
    if (n != NOVALUE) return n;
    if (tok == ".") fail(start, "unexpected '.'");
    if (tok.find('|') != std::string::npos) {
      std::string s;
      for (char c : tok)
        if (c != '|') s += c;
      return intern(s);
    }
    return intern(tok);
  }

  Value read_token_value(SrcLoc start) { return token_value(read_token_text(), start); }
};

}  // namespace

SourceReader::SourceReader(std::string_view text, uint32_t file_id) : impl_(new Reader(text, file_id)) {}
SourceReader::~SourceReader() { delete static_cast<Reader *>(impl_); }
Value SourceReader::next() { return static_cast<Reader *>(impl_)->read_top(); }

Value read_all(std::string_view text, uint32_t file_id) {
  Reader r(text, file_id);
  Value head = NIL, tail = NIL;
  for (;;) {
    Value d = r.read_top();
    if (d == NOVALUE) return head;
    Value cell = cons(d, NIL);
    if (head == NIL) head = cell;
    else as<Pair>(tail)->cdr = cell;
    tail = cell;
  }
}

Value read_datum(Port *p, uint32_t file_id) {
  Reader r(p, file_id);
  Value d = r.read_top();
  return d == NOVALUE ? EOF_V : d;
}

}  // namespace kiln

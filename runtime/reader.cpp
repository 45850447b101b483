#include "runtime/reader.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/error.h"
#include "runtime/eval_internal.h"
#include "runtime/list_builder.h"
#include "runtime/number.h"
#include "runtime/srcloc.h"
#include "runtime/unicode.h"
#include "runtime/utf8.h"

namespace kiln {

namespace {

struct Open {
  char closer;
  uint32_t line, col;
};

// Lower-case ASCII: the case-insensitive parts of the syntax (`#T`, `#X1F`,
// `+INF.0`) are all ASCII.
std::string ascii_lower(std::string_view s) {
  std::string r(s);
  for (char &c : r)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return r;
}

// #!fold-case folds symbols and character names as string-foldcase would:
// full case folding has no context rules, so folding each character alone
// gives the folding of the whole name.
void append_folded(std::string &out, uint32_t c) {
  if (c < 0x80) {
    out += char(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return;
  }
  for (uint32_t f : map_case(&c, 1, CaseMapping::Foldcase)) utf8_append(out, f);
}

bool is_hex_digit(int c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }

// A character for an error message: control characters written as escapes
// (\x0d;), so a message never carries a raw CR or ESC to the terminal.
std::string char_text(int c) {
  std::string s;
  if (c < 0) return s;
  if (c < 0x20 || c == 0x7f) return fmt::format("x{:x};", c);
  utf8_append(s, uint32_t(c));
  return s;
}

bool at_line_end(int c) { return c < 0 || c == '\n' || c == '\r'; }

class Reader {
 public:
  Reader(std::string_view text, uint32_t file) : text_(text), port_(nullptr), file_(file) {}
  explicit Reader(Port *p) : port_(p), file_(port_source_id(p)), fold_case_(p->fold_case != 0) {}

  // Returns NOVALUE at end of input. Datum labels are scoped to one top-level datum.
  Value read_top() {
    labels_ = NIL;
    skip_atmosphere();
    if (peek() < 0) return NOVALUE;
    Value d = read_datum();
    labels_ = NIL;
    return d;
  }

 private:
  static constexpr int kNone = -2;
  std::string_view text_;
  size_t pos_ = 0;
  Port *port_;
  uint32_t file_;
  uint32_t line_ = 1, col_ = 1;  // string sources; a port keeps its own
  bool after_cr_ = false;        // the last char was CR: an LF now ends the same line
  // Ports look one char further ahead by taking it from the port early; every
  // caller of peek2 consumes that char before read_top returns, so nothing is lost
  // between two `read`s.
  int ahead_ = kNone;
  SrcLoc ahead_at_{};
  bool fold_case_ = false;
  // Datum labels of the current top-level datum: a list of vectors
  // #(N PLACEHOLDER VALUE-OR-NOVALUE USED?). The reader lives in collected memory or
  // on the stack (see SourceReader), so this list is a root.
  Value labels_ = NIL;
  std::vector<Open> open_;

  static uint32_t port_source_id(Port *p) {
    if (p->source_id == 0) {
      std::string_view name = string_view_of(p->name);
      p->source_id = register_source_file(p->is_file ? name : std::string_view("<string>"));
    }
    return p->source_id;
  }

  // The character of a source text at byte offset *at (advancing *at past
  // it), or -1 at the end. Source is UTF-8: anything else is a read error at
  // that character's line and column.
  int decode_at(size_t *at) {
    if (*at >= text_.size()) return -1;
    unsigned char b = (unsigned char)text_[*at];
    if (b < 0x80) {
      ++*at;
      return b;
    }
    int32_t c = utf8_next(text_, at);
    if (c < 0) {
      SrcLoc loc = here();
      if (*at != pos_) loc.col++;  // peek2: the character after the current one
      fail(loc, fmt::format("invalid UTF-8 (byte 0x{:02X})", b));
    }
    return c;
  }

  int peek() {
    if (port_) return ahead_ != kNone ? ahead_ : port_peek_char(port_);
    size_t at = pos_;
    return decode_at(&at);
  }
  int peek2() {
    if (port_) {
      if (ahead_ == kNone) {
        ahead_at_ = here();
        ahead_ = port_read_char(port_);
      }
      return port_peek_char(port_);
    }
    size_t at = pos_;
    if (decode_at(&at) < 0) return -1;
    return decode_at(&at);
  }
  int get() {
    if (port_) {
      if (ahead_ == kNone) return port_read_char(port_);
      int c = ahead_;
      ahead_ = kNone;
      return c;
    }
    int c = decode_at(&pos_);
    // LF, CR LF and CR each end one line (R7RS 7.1.1), for the places in messages.
    if (c == '\r' || (c == '\n' && !after_cr_)) {
      line_++;
      col_ = 1;
    } else if (c >= 0 && c != '\n') {
      col_++;
    }
    after_cr_ = c == '\r';
    return c;
  }

  SrcLoc here() const {
    if (port_) return ahead_ != kNone ? ahead_at_ : SrcLoc{file_, port_->line, port_->col};
    return SrcLoc{file_, line_, col_};
  }
  // A read error in a program's source is reported at its place in the source;
  // one from `read` on a port at the `read` call, with the port's place in the message.
  [[noreturn]] void fail(SrcLoc at, std::string_view msg) {
    if (!port_) throw_error_at(at, msg);
    throw_error_at(SrcLoc{}, fmt::format("{} ({}:{}:{})", msg, source_file_name(file_), at.line, at.col));
  }
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

  // "#!" of a script's first line, as opposed to a directive such as #!fold-case.
  bool at_script_line() const {
    return !port_ && pos_ == 0 && text_.size() > 2 && (text_[2] == '/' || text_[2] == ' ');
  }

  void skip_atmosphere() {
    for (;;) {
      int c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        get();
      } else if (c == ';') {
        while (!at_line_end(peek())) get();
      } else if (c == '#' && (peek2() == '|' || peek2() == ';')) {
        SrcLoc start = here();
        get();
        if (get() == '|') {
          skip_block_comment(start);
        } else {
          skip_atmosphere();
          if (peek() < 0 || peek() == ')' || peek() == ']')
            fail(start, "datum comment '#;' has no datum to skip");
          read_datum();
        }
      } else if (c == '#' && peek2() == '!') {
        if (at_script_line()) {
          while (!at_line_end(peek())) get();  // "#!/usr/bin/env kiln"
          continue;
        }
        get();
        get();
        std::string name = ascii_lower(read_token().text);
        // Other directives (#!r7rs, #!default, ...) are read and ignored.
        if (name == "fold-case") set_fold_case(true);
        else if (name == "no-fold-case") set_fold_case(false);
      } else {
        return;
      }
    }
  }

  void set_fold_case(bool on) {
    fold_case_ = on;
    if (port_) port_->fold_case = on;  // R7RS: it lasts for later reads from the same port
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
    default: return token_value(read_token(), start);
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
    ListBuilder items;
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
        return items.head;
      }
      if (c == '.' && is_delimiter(peek2())) {
        SrcLoc dot = here();
        get();
        return finish_dotted(items, closer, dot, in_vector);
      }
      Value item = read_datum();
      items.push_cell(with_loc(cons(item, NIL), start));
    }
  }

  // After the '.' of a dotted list: the one datum that ends it, then its closer.
  Value finish_dotted(ListBuilder &items, char closer, SrcLoc dot, bool in_vector) {
    if (in_vector) fail(dot, "unexpected '.' in a vector");
    if (items.head == NIL) fail(dot, "unexpected '.' at the start of a list");
    Value rest = read_datum();
    skip_atmosphere();
    int e = peek();
    if (e < 0) fail_eof();
    if (e != closer) fail(here(), "expected one datum after '.'");
    get();
    open_.pop_back();
    return items.finish(rest);
  }

  // The escapes strings and |symbols| share, after the backslash: \n \t \r \a \b \0
  // \\ \" \| and \xHH;. Returns false for a char that is not one of them.
  // `in` names the context for errors: "string" or "|symbol|".
  bool read_escape(int e, SrcLoc esc, std::string &out, const char *in) {
    switch (e) {
    case 'n': out += '\n'; return true;
    case 't': out += '\t'; return true;
    case 'r': out += '\r'; return true;
    case 'a': out += '\a'; return true;
    case 'b': out += '\b'; return true;
    case '0': out += '\0'; return true;
    case '\\': out += '\\'; return true;
    case '"': out += '"'; return true;
    case '|': out += '|'; return true;
    case 'x':
    case 'X': {
      std::string hex;
      while (is_hex_digit(peek()) && hex.size() < 8) hex += char(get());
      if (hex.empty() || peek() != ';')
        fail(esc, fmt::format("bad {} escape: \\x must be followed by hex digits and ';'", in));
      get();
      unsigned long v = std::strtoul(hex.c_str(), nullptr, 16);
      if (!is_scalar_value(int64_t(v)))
        fail(esc,
             fmt::format("{} escape \\x{}; is not a Unicode scalar value (0 to 10FFFF, not D800 to DFFF)", in,
                         hex));
      utf8_append(out, uint32_t(v));
      return true;
    }
    default: return false;
    }
  }

  Value read_string(SrcLoc start) {
    std::string s;
    for (;;) {
      SrcLoc esc = here();  // a bad escape is reported at its backslash
      int c = get();
      if (c < 0) fail(start, "unterminated string");
      if (c == '"') return make_string(s);
      if (c != '\\') {
        utf8_append(s, uint32_t(c));
        continue;
      }
      int e = get();
      if (read_escape(e, esc, s, "string")) continue;
      switch (e) {
      case '\n':
      case '\r':
      case ' ':
      case '\t': {
        // Line continuation: skip trailing blanks, the line ending (LF, CR LF or CR),
        // and leading blanks.
        int ch = e;
        while (ch == ' ' || ch == '\t') ch = get();
        if (ch != '\n' && ch != '\r' && ch >= 0) fail(esc, "bad string escape");
        if (ch == '\r' && peek() == '\n') get();
        while (peek() == ' ' || peek() == '\t') get();
        break;
      }
      case -1: fail(start, "unterminated string");
      default: fail(esc, fmt::format("unknown string escape '\\{}'", char_text(e)));
      }
    }
  }

  struct Token {
    std::string text;     // bars removed, escapes decoded, folded outside bars under #!fold-case
    bool barred = false;  // some of it was inside |...|: a symbol, never a number
  };

  Token read_token() {
    Token t;
    while (!is_delimiter(peek())) {
      SrcLoc open = here();
      int c = get();
      if (c != '|') {
        if (fold_case_) append_folded(t.text, uint32_t(c));
        else utf8_append(t.text, uint32_t(c));
        continue;
      }
      t.barred = true;
      for (;;) {
        SrcLoc esc = here();
        int d = get();
        if (d < 0) fail(open, "unterminated |symbol|");
        if (d == '|') break;
        if (d != '\\') {
          utf8_append(t.text, uint32_t(d));
          continue;
        }
        int e = get();
        if (e < 0) fail(open, "unterminated |symbol|");
        if (!read_escape(e, esc, t.text, "|symbol|"))
          fail(esc, fmt::format("unknown escape '\\{}' in a |symbol|", char_text(e)));
      }
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
    if (c == '\\') return read_char_literal(start);
    // R6RS syntax abbreviations, so syntax-case code reads and then gets
    // analysis's "syntax-case is not supported" rather than a read error.
    if (c == '\'' || c == '`') {
      get();
      return read_abbrev(c == '\'' ? "syntax" : "quasisyntax", start);
    }
    if (c == ',') {
      get();
      if (peek() != '@') return read_abbrev("unsyntax", start);
      get();
      return read_abbrev("unsyntax-splicing", start);
    }
    if (c >= '0' && c <= '9') return read_label(start);
    Token tok = read_token();
    std::string low = ascii_lower(tok.text);
    if (!tok.barred) {
      if (low == "u8" && peek() == '(') {
        get();
        return bytevector_of(read_list(')', start, true), start);
      }
      if (low == "t" || low == "true") return TRUE_V;
      if (low == "f" || low == "false") return FALSE_V;
      if (low == "eof") return EOF_V;
      if (!low.empty() && std::strchr("xbodei", low[0])) {
        Value v = number_or_novalue("#" + tok.text, start);
        if (v != NOVALUE) return v;
      }
    }
    fail(start, fmt::format("unknown syntax '#{}'", tok.text));
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

  Value read_char_literal(SrcLoc start) {
    get();  // '\\'
    int first = get();
    if (first < 0) fail(start, "unexpected end of input in character literal");
    if (is_delimiter(peek())) return make_char(uint32_t(first));  // #\a, #\λ, #\(
    std::string name;
    utf8_append(name, uint32_t(first));
    while (!is_delimiter(peek())) utf8_append(name, uint32_t(get()));
    if (fold_case_) {
      std::string folded;
      for (size_t i = 0; i < name.size();) append_folded(folded, uint32_t(utf8_next(name, &i)));
      name = folded;
    }
    static const struct {
      const char *n;
      uint32_t c;
    } names[] = {{"space", ' '},   {"newline", '\n'},  {"tab", '\t'},  {"nul", 0},       {"null", 0},
                 {"return", '\r'}, {"linefeed", '\n'}, {"alarm", 7},   {"backspace", 8}, {"delete", 127},
                 {"escape", 27},   {"altmode", 27},    {"rubout", 127}};
    for (auto &n : names)
      if (name == n.n) return make_char(n.c);
    if ((name[0] == 'x' || name[0] == 'U' || name[0] == 'u') && name.size() > 1) {
      bool hex = name.size() <= 9;
      for (size_t i = 1; i < name.size() && hex; i++) hex = is_hex_digit((unsigned char)name[i]);
      if (hex) {
        unsigned long v = std::strtoul(name.c_str() + 1, nullptr, 16);
        if (!is_scalar_value(int64_t(v)))
          fail(start,
               fmt::format("character #\\{} is not a Unicode scalar value (0 to 10FFFF, not D800 to DFFF)",
                           name));
        return make_char(uint32_t(v));
      }
      if (name.size() > 9 && name.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string::npos)
        fail(start,
             fmt::format("character #\\{} is not a Unicode scalar value (0 to 10FFFF, not D800 to DFFF)",
                         name));
    }
    fail(start, fmt::format("unknown character name #\\{}", name));
  }

  // ---- datum labels: #N=DATUM defines N for the rest of the top-level datum,
  // #N# refers to it. A reference made while N's own datum is still being read
  // gets a placeholder, replaced once that datum is complete (which is how
  // cycles are built).

  enum { kLabelN, kLabelPlaceholder, kLabelValue, kLabelUsed, kLabelFields };

  Value find_label(int64_t n) {
    for (Value p = labels_; is_pair(p); p = cdr(p))
      if (int_of(as<Vector>(car(p))->items[kLabelN]) == n) return car(p);
    return NOVALUE;
  }

  Value read_label(SrcLoc start) {
    int64_t n = 0;
    std::string digits;
    while (peek() >= '0' && peek() <= '9') {
      digits += char(get());
      if (digits.size() > 9) fail(start, fmt::format("datum label #{} is too large", digits));
      n = n * 10 + (digits.back() - '0');
    }
    int mark = get();
    if (mark == '#') {
      Value lab = find_label(n);
      if (lab == NOVALUE) fail(start, fmt::format("undefined datum label #{}#", n));
      Vector *l = as<Vector>(lab);
      if (l->items[kLabelValue] != NOVALUE) return l->items[kLabelValue];
      l->items[kLabelUsed] = TRUE_V;
      return l->items[kLabelPlaceholder];
    }
    if (mark != '=')
      fail(start, fmt::format("unknown syntax '#{}{}'", digits, mark < 0 ? "" : std::string(1, char(mark))));
    if (find_label(n) != NOVALUE) fail(start, fmt::format("datum label #{}= is defined twice", n));
    Value lab = make_vector(kLabelFields, FALSE_V);
    Vector *l = as<Vector>(lab);
    l->items[kLabelN] = make_int(n);
    l->items[kLabelPlaceholder] = cons(intern("datum-label"), make_int(n));  // unique by identity
    l->items[kLabelValue] = NOVALUE;
    labels_ = cons(lab, labels_);
    skip_atmosphere();
    if (peek() < 0) fail_eof();
    Value d = read_datum();
    l = as<Vector>(lab);
    if (d == l->items[kLabelPlaceholder])
      fail(start, fmt::format("datum label #{}= refers only to itself", n));
    l->items[kLabelValue] = d;
    if (l->items[kLabelUsed] == TRUE_V) patch_label(d, l->items[kLabelPlaceholder], d);
    return d;
  }

  // Replaces `placeholder` by `value` in the pairs and vectors reachable from
  // `root`, each visited once (the data may already hold cycles).
  static void patch_label(Value root, Value placeholder, Value value) {
    std::unordered_set<uint64_t> seen;
    std::vector<Value> todo{root};  // reachable from `root`, which the caller holds
    while (!todo.empty()) {
      Value v = todo.back();
      todo.pop_back();
      while (is_pair(v) || is_vector(v)) {
        if (!seen.insert(v.bits).second) break;
        if (is_vector(v)) {
          Vector *vec = as<Vector>(v);
          for (int64_t i = 0; i < vec->len; i++) {
            if (vec->items[i] == placeholder) vec->items[i] = value;
            else todo.push_back(vec->items[i]);
          }
          break;
        }
        Pair *p = as<Pair>(v);
        if (p->car == placeholder) p->car = value;
        else todo.push_back(p->car);
        if (p->cdr == placeholder) {
          p->cdr = value;
          break;
        }
        v = p->cdr;
      }
    }
  }

  // Number syntax is number.cpp's, shared with string->number. Number syntax
  // Kiln refuses (an exact n/0) is a read error rather than a symbol.
  Value number_or_novalue(const std::string &text, SrcLoc start) {
    std::string refused;
    Value v = parse_number(text, 10, &refused);
    if (v == NOVALUE && !refused.empty()) fail(start, refused);
    return v;
  }

  Value token_value(const Token &tok, SrcLoc start) {
    if (tok.barred) return intern(tok.text);
    if (tok.text.empty()) fail(start, "unexpected character");
    Value n = number_or_novalue(tok.text, start);
    if (n != NOVALUE) return n;
    if (tok.text == ".") fail(start, "unexpected '.'");
    return intern(tok.text);
  }
};

}  // namespace

// In uncollectable (scanned) memory, so the Values a Reader holds are roots.
SourceReader::SourceReader(std::string_view text, uint32_t file_id)
    : impl_(new (gc_checked(GC_MALLOC_UNCOLLECTABLE(sizeof(Reader)), sizeof(Reader))) Reader(text, file_id)) {
}
SourceReader::~SourceReader() {
  static_cast<Reader *>(impl_)->~Reader();
  GC_FREE(impl_);
}
Value SourceReader::next() { return static_cast<Reader *>(impl_)->read_top(); }

Value read_all(std::string_view text, uint32_t file_id) {
  Reader r(text, file_id);
  ListBuilder data;
  for (;;) {
    Value d = r.read_top();
    if (d == NOVALUE) return data.head;
    data.push(d);
  }
}

Value read_datum(Port *p) {
  Reader r(p);
  Value d = r.read_top();
  return d == NOVALUE ? EOF_V : d;
}

}  // namespace kiln

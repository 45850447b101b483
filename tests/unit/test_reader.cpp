// Unit tests for runtime/reader.h: every datum kind of docs/language.md, the source
// locations kept on pairs, and the text and position of every read error.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "runtime/error.h"
#include "runtime/port.h"
#include "runtime/printer.h"
#include "runtime/reader.h"
#include "runtime/srcloc.h"

using namespace kiln;

namespace {

// Reads exactly one datum from `text`.
Value read_one(std::string_view text) {
  Value all = read_all(text, register_source_file("unit.lisp"));
  REQUIRE(is_pair(all));
  REQUIRE(cdr(all) == NIL);
  return car(all);
}

std::string roundtrip(std::string_view text) { return write_string(read_one(text)); }

struct ReadFailure {
  std::string message;  // empty when no error was raised
  SrcLoc loc;
};

ReadFailure read_failure(std::string_view text) {
  try {
    read_all(text, register_source_file("bad.lisp"));
  } catch (LispError &e) {
    return ReadFailure{error_message_of(g_raised), e.loc};
  }
  return ReadFailure{};
}

}  // namespace

TEST_CASE("reader: integers", "[reader]") {
  CHECK(int_of(read_one("42")) == 42);
  CHECK(int_of(read_one("-7")) == -7);
  CHECK(int_of(read_one("+3")) == 3);
  CHECK(int_of(read_one("0")) == 0);
  CHECK(int_of(read_one("9223372036854775807")) == INT64_MAX);
  CHECK(int_of(read_one("-9223372036854775808")) == INT64_MIN);
  CHECK(int_of(read_one("#xff")) == 255);
  CHECK(int_of(read_one("#b101")) == 5);
  CHECK(int_of(read_one("#o17")) == 15);
}

TEST_CASE("reader: floats", "[reader]") {
  CHECK(double_of(read_one("1.5")) == 1.5);
  CHECK(double_of(read_one("-0.25")) == -0.25);
  CHECK(double_of(read_one("1e3")) == 1000.0);
  CHECK(double_of(read_one(".5")) == 0.5);
  CHECK(double_of(read_one("-.5")) == -0.5);
  CHECK(double_of(read_one("2.5e-3")) == 0.0025);
  CHECK(double_of(read_one("+inf.0")) == INFINITY);
  CHECK(double_of(read_one("-inf.0")) == -INFINITY);
  CHECK(std::isnan(double_of(read_one("+nan.0"))));
  Value negzero = read_one("-0.0");
  CHECK(is_double(negzero));
  CHECK(std::signbit(double_of(negzero)));
  CHECK(is_double(read_one("1.")));
}

TEST_CASE("reader: symbols are case-sensitive, |bars| allow odd names", "[reader]") {
  CHECK(read_one("abc") == intern("abc"));
  CHECK(read_one("Abc") == intern("Abc"));
  CHECK(read_one("Abc") != read_one("abc"));
  CHECK(read_one("|odd symbol|") == intern("odd symbol"));
  CHECK(read_one("||") == intern(""));
  CHECK(read_one("+") == intern("+"));
  CHECK(read_one("...") == intern("..."));
  CHECK(read_one("1+") == intern("1+"));
  CHECK(read_one("->x") == intern("->x"));
}

TEST_CASE("reader: strings and every escape", "[reader]") {
  CHECK(string_view_of(read_one("\"plain\"")) == "plain");
  CHECK(string_view_of(read_one(R"("a\nb\tc\rd")")) == "a\nb\tc\rd");
  CHECK(string_view_of(read_one(R"("q\"b\\")")) == "q\"b\\");
  CHECK(string_view_of(read_one(R"("\a")")) == "\a");
  CHECK(string_view_of(read_one(R"("\x41;\x62;")")) == "Ab");
  std::string_view nul = string_view_of(read_one(R"("x\0y")"));
  CHECK(nul.size() == 3);
  CHECK(nul[1] == '\0');
  CHECK(string_view_of(read_one("\"two\nlines\"")) == "two\nlines");
  CHECK(string_view_of(read_one("\"\"")).empty());
}

TEST_CASE("reader: characters", "[reader]") {
  CHECK(char_of(read_one("#\\a")) == 'a');
  CHECK(char_of(read_one("#\\space")) == ' ');
  CHECK(char_of(read_one("#\\newline")) == '\n');
  CHECK(char_of(read_one("#\\tab")) == '\t');
  CHECK(char_of(read_one("#\\nul")) == 0);
  CHECK(char_of(read_one("#\\x41")) == 'A');
  CHECK(char_of(read_one("#\\x")) == 'x');
  CHECK(char_of(read_one("#\\(")) == '(');
  CHECK(char_of(read_one("#\\)")) == ')');
}

TEST_CASE("reader: booleans, lists, dotted pairs, vectors, brackets", "[reader]") {
  CHECK(read_one("#t") == TRUE_V);
  CHECK(read_one("#true") == TRUE_V);
  CHECK(read_one("#f") == FALSE_V);
  CHECK(read_one("#false") == FALSE_V);
  CHECK(read_one("()") == NIL);
  CHECK(read_one("[]") == NIL);
  CHECK(roundtrip("(1 2 3)") == "(1 2 3)");
  CHECK(roundtrip("(a . b)") == "(a . b)");
  CHECK(roundtrip("(1 2 . 3)") == "(1 2 . 3)");
  CHECK(roundtrip("(1 . (2 . (3 . ())))") == "(1 2 3)");
  CHECK(roundtrip("[a (b [c]) d]") == "(a (b (c)) d)");
  Value v = read_one("#(1 \"two\" #\\3)");
  REQUIRE(is_vector(v));
  CHECK(as<Vector>(v)->len == 3);
  CHECK(roundtrip("#(1 \"two\" #\\3)") == "#(1 \"two\" #\\3)");
  CHECK(roundtrip("#()") == "#()");
}

TEST_CASE("reader: quote abbreviations", "[reader]") {
  CHECK(roundtrip("'x") == "(quote x)");
  CHECK(roundtrip("`x") == "(quasiquote x)");
  CHECK(roundtrip(",x") == "(unquote x)");
  CHECK(roundtrip(",@x") == "(unquote-splicing x)");
  CHECK(roundtrip("'(a 'b)") == "(quote (a (quote b)))");
  CHECK(roundtrip("' x") == "(quote x)");
}

TEST_CASE("reader: comments", "[reader]") {
  CHECK(roundtrip("; line\n(a ; inside\n b)") == "(a b)");
  CHECK(roundtrip("#| block |# x") == "x");
  CHECK(roundtrip("#| outer #| nested |# still |# y") == "y");
  CHECK(roundtrip("(a #;(skip me) b)") == "(a b)");
  CHECK(roundtrip("(a #;#;x y b)") == "(a b)");
  CHECK(read_all("; only a comment\n#| and a block |#", register_source_file("c.lisp")) == NIL);
  CHECK(read_all("", register_source_file("empty.lisp")) == NIL);
}

TEST_CASE("reader: every pair keeps its file, line and column", "[reader]") {
  uint32_t file = register_source_file("loc.lisp");
  Value all = read_all("(define (f x)\n  (car x))\n  'q", file);
  Value def = car(all);
  SrcLoc d = loc_of(def);
  CHECK(d.file == file);
  CHECK(source_file_name(d.file) == "loc.lisp");
  CHECK(d.line == 1);
  CHECK(d.col == 1);
  SrcLoc head = loc_of(car(cdr(def)));  // (f x)
  CHECK(head.line == 1);
  CHECK(head.col == 9);
  SrcLoc body = loc_of(car(cdr(cdr(def))));  // (car x)
  CHECK(body.line == 2);
  CHECK(body.col == 3);
  SrcLoc quote = loc_of(car(cdr(all)));  // 'q is located at the quote character
  CHECK(quote.line == 3);
  CHECK(quote.col == 3);
  CHECK(format_loc(body) == "loc.lisp:2:3");
}

TEST_CASE("reader: SourceReader yields data one at a time", "[reader]") {
  SourceReader r("1 (2) ; end\n3 )", register_source_file("seq.lisp"));
  CHECK(int_of(r.next()) == 1);
  CHECK(write_string(r.next()) == "(2)");
  CHECK(int_of(r.next()) == 3);
  // The earlier data were returned before the error in the rest was found.
  CHECK_THROWS_AS(r.next(), LispError);
  SourceReader done("x", register_source_file("one.lisp"));
  CHECK(done.next() == intern("x"));
  CHECK(done.next() == NOVALUE);
}

TEST_CASE("reader: error texts and positions", "[reader]") {
  struct Case {
    const char *text;
    const char *message;
    uint32_t line, col;
  } cases[] = {
      {"(display \"abc)", "unterminated string", 1, 10},
      {"(+ 1 2))", "unexpected ')'", 1, 8},
      {"\n(define (f)\n  (g", "unexpected end of input (2 unclosed '(' opened at 2:1)", 3, 5},
      {"[a", "unexpected end of input (1 unclosed '[' opened at 1:1)", 1, 3},
      {"(1 2]", "unexpected ']' (expected ')' to close '(' opened at 1:1)", 1, 5},
      {"[1 2)", "unexpected ')' (expected ']' to close '[' opened at 1:1)", 1, 5},
      {"(x -1/0)", "division by zero in -1/0", 1, 4},
      {"\"a\\qb\"", "unknown string escape '\\q'", 1, 3},
      {"#\\bogus", "unknown character name #\\bogus", 1, 1},
      {"#| never closed", "unterminated block comment", 1, 1},
      {"( . 1)", "unexpected '.' at the start of a list", 1, 3},
      {"(1 . 2 3)", "expected one datum after '.'", 1, 8},
      {"'", "unexpected end of input", 1, 2},
      {"#(1 . 2)", "unexpected '.' in a vector", 1, 5},
      {"(a #;)", "datum comment '#;' has no datum to skip", 1, 4},
      {"(#0=a #1#)", "undefined datum label #1#", 1, 7},
      {"#0=#0#", "datum label #0= refers only to itself", 1, 1},
      {"(#0=a #0=b)", "datum label #0= is defined twice", 1, 7},
      {"|a\\qb|", "unknown escape '\\q' in a |symbol|", 1, 3},
      {"  |open", "unterminated |symbol|", 1, 3},
  };
  for (const Case &c : cases) {
    INFO("input: " << c.text);
    ReadFailure f = read_failure(c.text);
    CHECK(f.message == c.message);
    CHECK(f.loc.line == c.line);
    CHECK(f.loc.col == c.col);
    CHECK(source_file_name(f.loc.file) == "bad.lisp");
  }
}

TEST_CASE("reader: a read error is a read-error object", "[reader]") {
  ReadFailure f = read_failure("(1 2");
  REQUIRE(is_error_obj(g_raised));
  CHECK(as<ErrorObj>(g_raised)->kind == intern("read-error"));
  CHECK(f.message.rfind("unexpected end of input", 0) == 0);
}

TEST_CASE("reader: datum labels build shared and circular data", "[reader]") {
  Value x = read_one("#0=(a b . #0#)");
  CHECK(cdr(cdr(x)) == x);
  Value v = read_one("#1=#(1 #1# (#1#))");
  CHECK(as<Vector>(v)->items[1] == v);
  CHECK(car(as<Vector>(v)->items[2]) == v);
  Value s = read_one("(#2=(x) #2#)");
  CHECK(car(s) == car(cdr(s)));
}

TEST_CASE("reader: |symbol| escapes, case-insensitive syntax, #!fold-case", "[reader]") {
  CHECK(read_one("|sym\\x41;bol|") == intern("symAbol"));
  CHECK(read_one("|a\\|b|") == intern("a|b"));
  CHECK(read_one("|1|") == intern("1"));
  CHECK(int_of(read_one("#X1F")) == 31);
  CHECK(read_one("#TRUE") == TRUE_V);
  CHECK(std::isinf(double_of(read_one("-INF.0"))));
  CHECK(double_of(read_one("1E3")) == 1000.0);
  Value all =
      read_all("Abc #!fold-case Abc #\\SPACE |Abc| #!no-fold-case Abc", register_source_file("fold.lisp"));
  CHECK(write_string(all) == "(Abc abc #\\space Abc Abc)");
}

TEST_CASE("reader: read on a port is the same reader, and loses no input", "[reader]") {
  Port *p = as<Port>(make_string_input_port("#| c |# (a #;b . c) #t(rest) #!fold-case X"));
  CHECK(write_string(read_datum(p)) == "(a . c)");
  CHECK(read_datum(p) == TRUE_V);
  CHECK(port_read_char(p) == '(');
  CHECK(read_datum(p) == intern("rest"));
  CHECK(port_read_char(p) == ')');
  CHECK(read_datum(p) == intern("x"));  // #!fold-case lasted across reads
  CHECK(read_datum(p) == EOF_V);
  Port *bad = as<Port>(make_string_input_port("\n  )"));
  try {
    read_datum(bad);
    FAIL("no error");
  } catch (LispError &) {
    CHECK(error_message_of(g_raised) == "unexpected ')' (<string>:2:3)");
  }
}

// Unit tests for runtime/printer.h: the float rule of SPEC §3 (format_double),
// display versus write for every kind of value, and string escapes.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <string>

#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/reader.h"
#include "runtime/srcloc.h"

using namespace kiln;

namespace {
Value eval_text(std::string_view src) { return eval_string(src, "printer-test"); }
}  // namespace

TEST_CASE("format_double: shortest round-trip text, always marked as a float", "[printer]") {
  CHECK(format_double(1.0) == "1.0");
  CHECK(format_double(0.1) == "0.1");
  CHECK(format_double(0.1 + 0.2) == "0.30000000000000004");
  CHECK(format_double(1e21) == "1e+21");
  CHECK(format_double(1e-7) == "1e-07");
  CHECK(format_double(-0.0) == "-0.0");
  CHECK(format_double(0.0) == "0.0");
  CHECK(format_double(INFINITY) == "+inf.0");
  CHECK(format_double(-INFINITY) == "-inf.0");
  CHECK(format_double(NAN) == "+nan.0");
  CHECK(format_double(-NAN) == "+nan.0");
  CHECK(format_double(123456789.123) == "123456789.123");
  CHECK(format_double(100.0) == "100.0");
  CHECK(format_double(-2.5) == "-2.5");
  CHECK(format_double(5e-324) == "5e-324");
  CHECK(format_double(1.7976931348623157e308) == "1.7976931348623157e+308");
  std::string appended = "x=";
  format_double(appended, 2.0);
  CHECK(appended == "x=2.0");
}

TEST_CASE("format_double: the text reads back to the same double", "[printer]") {
  const double samples[] = {0.1,     1.0 / 3,       2.0 / 3,  1e-300,
                            123.456, 6.02214076e23, -1.5e-10, 4503599627370497.0};
  for (double d : samples) {
    std::string s = format_double(d);
    INFO(s);
    CHECK(std::strtod(s.c_str(), nullptr) == d);
    Value back = read_all(s, register_source_file("fd.lisp"));
    REQUIRE(is_pair(back));
    REQUIRE(is_double(car(back)));
    CHECK(double_of(car(back)) == d);
  }
}

TEST_CASE("printer: atoms in display and write form", "[printer]") {
  CHECK(write_string(make_int(42)) == "42");
  CHECK(write_string(make_int(-9223372036854775807LL - 1)) == "-9223372036854775808");
  CHECK(write_string(make_double(1.0)) == "1.0");
  CHECK(write_string(TRUE_V) == "#t");
  CHECK(write_string(FALSE_V) == "#f");
  CHECK(write_string(NIL) == "()");
  CHECK(write_string(EOF_V) == "#<eof>");
  CHECK(write_string(UNSPEC) == "#<unspecified>");
  CHECK(display_string(UNSPEC) == "#<unspecified>");
  CHECK(write_string(intern("abc")) == "abc");
  CHECK(write_string(intern("odd symbol")) == "|odd symbol|");
  CHECK(display_string(intern("odd symbol")) == "odd symbol");
  CHECK(write_string(intern("")) == "||");
}

TEST_CASE("printer: a symbol is barred exactly when its name would not read back", "[printer]") {
  for (const char *bare : {"inf", "nan", "infinity", "e3", "-", "+", "...", "1+", "a#b", "->x", "a.b"}) {
    INFO(bare);
    CHECK(write_string(intern(bare)) == bare);
  }
  for (const char *name :
       {"+inf.0", "-inf.0", "+nan.0", "1e3", ".5", "-5", "42", "1.", "#t", "#foo", ".", "a b", ""}) {
    INFO(name);
    CHECK(write_string(intern(name)) == std::string("|") + name + "|");
    // and what write produced reads back as the same symbol
    Value back = read_all(write_string(intern(name)), register_source_file("sym.lisp"));
    REQUIRE(is_pair(back));
    CHECK(car(back) == intern(name));
  }
}

TEST_CASE("printer: characters", "[printer]") {
  CHECK(write_string(make_char('a')) == "#\\a");
  CHECK(display_string(make_char('a')) == "a");
  CHECK(write_string(make_char(' ')) == "#\\space");
  CHECK(write_string(make_char('\n')) == "#\\newline");
  CHECK(write_string(make_char('\t')) == "#\\tab");
  CHECK(write_string(make_char(0)) == "#\\nul");
  CHECK(write_string(make_char('\r')) == "#\\return");
  CHECK(display_string(make_char('\n')) == "\n");
}

TEST_CASE("printer: strings, with write escapes", "[printer]") {
  CHECK(display_string(make_string("a\"b")) == "a\"b");
  CHECK(write_string(make_string("a\"b")) == "\"a\\\"b\"");
  CHECK(write_string(make_string("back\\slash")) == "\"back\\\\slash\"");
  CHECK(write_string(make_string("n\nt\tr\r")) == "\"n\\nt\\tr\\r\"");
  CHECK(write_string(make_string(std::string_view("\x01\x1b\x7f", 3))) == "\"\\x1;\\x1b;\\x7f;\"");
  CHECK(write_string(make_string(std::string_view("a\0b", 3))) == "\"a\\x0;b\"");
  CHECK(write_string(make_string("")) == "\"\"");
  // Every written string reads back as the same bytes.
  std::string all;
  for (int c = 1; c < 128; c++) all += char(c);
  Value s = make_string(all);
  Value back = read_all(write_string(s), register_source_file("esc.lisp"));
  REQUIRE(is_pair(back));
  CHECK(string_view_of(car(back)) == all);
}

TEST_CASE("printer: lists, dotted pairs, quote forms, vectors", "[printer]") {
  Value lst = cons(make_int(1), cons(make_int(2), cons(make_int(3), NIL)));
  CHECK(write_string(lst) == "(1 2 3)");
  CHECK(write_string(cons(make_int(1), make_int(2))) == "(1 . 2)");
  CHECK(write_string(cons(make_int(1), cons(make_int(2), make_int(3)))) == "(1 2 . 3)");
  CHECK(write_string(cons(intern("quote"), cons(intern("x"), NIL))) == "(quote x)");
  Value v = make_vector(3, NIL);
  as<Vector>(v)->items[0] = make_string("s");
  as<Vector>(v)->items[1] = make_char('c');
  CHECK(write_string(v) == "#(\"s\" #\\c ())");
  CHECK(display_string(v) == "#(s c ())");
  CHECK(write_string(make_vector(0, NIL)) == "#()");
  Value nested = cons(make_string("a"), cons(make_vector(1, make_string("b")), NIL));
  CHECK(write_string(nested) == "(\"a\" #(\"b\"))");
  CHECK(display_string(nested) == "(a #(b))");
}

TEST_CASE("printer: procedures, builtins, macros, records", "[printer]") {
  CHECK(write_string(eval_text("(define (printer-test-named x) x) printer-test-named")) ==
        "#<procedure printer-test-named>");
  CHECK(write_string(eval_text("(lambda (x) x)")) == "#<procedure>");
  CHECK(write_string(eval_text("car")) == "#<builtin car>");
  CHECK(display_string(eval_text("vector-ref")) == "#<builtin vector-ref>");
  CHECK(write_string(eval_text("(defmacro printer-test-mac (x) x) printer-test-mac")) ==
        "#<macro printer-test-mac>");
  CHECK(write_string(eval_text("(define-record-type ptpoint (make-ptpoint x y) ptpoint? (x ptx) (y pty))"
                               "(make-ptpoint 1 \"two\")")) == "#<ptpoint 1 \"two\">");
  CHECK(display_string(eval_text("(make-ptpoint 1 \"two\")")) == "#<ptpoint 1 two>");
}

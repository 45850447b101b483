// Unit tests for runtime/printer.h: the float rule of docs/language.md (format_double),
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
                               "(make-ptpoint 1 \"two\")")) == "#<ptpoint x: 1 y: \"two\">");
  CHECK(display_string(eval_text("(make-ptpoint 1 \"two\")")) == "#<ptpoint x: 1 y: two>");
}

namespace {
Value ints(std::initializer_list<int64_t> xs) {
  Value r = NIL;
  for (auto it = std::rbegin(xs); it != std::rend(xs); ++it) r = cons(make_int(*it), r);
  return r;
}
Value last_pair(Value l) {
  while (is_pair(cdr(l))) l = cdr(l);
  return l;
}
// The list of xs whose last cdr points back to its first pair.
Value circular(std::initializer_list<int64_t> xs) {
  Value l = ints(xs);
  as<Pair>(last_pair(l))->cdr = l;
  return l;
}
}  // namespace

TEST_CASE("printer: cycles get datum labels, in write and display", "[printer][cycles]") {
  Value l = circular({1, 2, 3});
  CHECK(write_string(l) == "#0=(1 2 3 . #0#)");
  CHECK(display_string(l) == "#0=(1 2 3 . #0#)");
  CHECK(write_string(circular({7})) == "#0=(7 . #0#)");
  // The cdr comes back into the middle: the label goes on the pair it reaches.
  Value m = ints({1, 2, 3, 4});
  as<Pair>(last_pair(m))->cdr = cdr(m);
  CHECK(write_string(m) == "(1 . #0=(2 3 4 . #0#))");
  // Through a car.
  Value c = ints({1, 2});
  as<Pair>(c)->car = c;
  CHECK(write_string(c) == "#0=(#0# 2)");
  // Vectors, with write and display forms of what they hold.
  Value v = make_vector(3, make_string("s"));
  as<Vector>(v)->items[1] = v;
  as<Vector>(v)->items[2] = make_char('c');
  CHECK(write_string(v) == "#0=#(\"s\" #0# #\\c)");
  CHECK(display_string(v) == "#0=#(s #0# c)");
  // Labels count from 0 in the order they are first printed; a second
  // reference to a labelled object is only its label.
  Value a = circular({1}), b = circular({2, 3});
  Value both = cons(b, cons(a, cons(b, cons(a, NIL))));
  CHECK(write_string(both) == "(#0=(2 3 . #0#) #1=(1 . #1#) #0# #1#)");
  // Every pair of a chain holding itself: labels opened along the chain.
  Value chain = ints({1, 2, 3, 4});
  as<Pair>(cdr(chain))->car = cdr(chain);
  as<Pair>(cdr(cdr(chain)))->car = cdr(cdr(chain));
  CHECK(write_string(chain) == "(1 . #0=(#0# . #1=(#1# 4)))");
}

TEST_CASE("printer: records, error objects and appended output with cycles", "[printer][cycles]") {
  CHECK(write_string(eval_text("(define-record-type ptnode (make-ptnode v next) ptnode? (v ptnode-v)"
                               "  (next ptnode-next set-ptnode-next!))"
                               "(define ptn (make-ptnode 1 #f)) (set-ptnode-next! ptn ptn) ptn")) ==
        "#0=#<ptnode v: 1 next: #0#>");
  Value l = circular({1, 2});
  Value e = make_error_obj(make_string("bad"), cons(l, cons(make_int(5), NIL)), intern("error"));
  CHECK(write_string(e) == "#<error \"bad\" #0=(1 2 . #0#) 5>");
  // A circular irritant list (set-cdr! on error-object-irritants) prints once.
  Value irritants = ints({1, 2, 3});
  as<Pair>(last_pair(irritants))->cdr = cdr(irritants);
  CHECK(write_string(make_error_obj(make_string("m"), irritants, intern("error"))) ==
        "#<error \"m\" 1 2 3 ...>");
  // print_value appends: what was in the string before stays.
  std::string out = "before ";
  print_value(out, l, true);
  CHECK(out == "before #0=(1 2 . #0#)");
}

TEST_CASE("printer: shared but acyclic structure prints in full, without labels", "[printer][cycles]") {
  Value shared = ints({1, 2});
  Value v = make_vector(1, shared);
  CHECK(write_string(cons(shared, cons(shared, cons(v, NIL)))) == "((1 2) (1 2) #((1 2)))");
  Value x = cons(intern("leaf"), NIL);
  for (int i = 0; i < 3; i++) x = cons(x, cons(x, NIL));
  CHECK(write_string(x) == "((((leaf) (leaf)) ((leaf) (leaf))) (((leaf) (leaf)) ((leaf) (leaf))))");
  // Nesting deeper than the first attempt's cap (1000) with no cycle.
  Value deep = intern("x");
  std::string expected = "x";
  for (int i = 0; i < 3000; i++) {
    deep = cons(deep, NIL);
    expected = "(" + expected + ")";
  }
  CHECK(write_string(deep) == expected);
  // and a cycle through cars below that depth
  Value inner = cons(NIL, NIL);
  Value top = inner;
  for (int i = 0; i < 3000; i++) top = cons(top, NIL);
  as<Pair>(inner)->car = top;
  std::string s = write_string(top);
  CHECK(s.rfind("#0=(", 0) == 0);
  CHECK(s.size() == 3 + 3001 * 2 + 3);  // #0=, 3001 pairs around one #0#
}

TEST_CASE("printer: a million-element list, plain and circular, prints without deep recursion",
          "[printer][cycles]") {
  Value l = NIL;
  for (int i = 999999; i >= 0; i--) l = cons(make_int(i % 10), l);
  std::string plain = write_string(l);
  CHECK(plain.size() == 2 * 1000000 + 1);
  CHECK(plain.substr(0, 8) == "(0 1 2 3");
  CHECK(plain.substr(plain.size() - 5) == " 8 9)");
  as<Pair>(last_pair(l))->cdr = l;
  std::string circ = write_string(l);
  CHECK(circ.substr(0, 8) == "#0=(0 1 ");
  CHECK(circ.substr(circ.size() - 11) == " 8 9 . #0#)");
  CHECK(circ.size() == plain.size() + 3 + 6);
  // A million pairs each holding itself: a million labels along one chain.
  Value chain = NIL;
  for (int i = 0; i < 1000000; i++) {
    chain = cons(NIL, chain);
    as<Pair>(chain)->car = chain;
  }
  std::string labels = write_string(chain);
  CHECK(labels.substr(0, 16) == "#0=(#0# . #1=(#1");
  // ... . #999999=(#999999#)))...: every label's list closes at the end
  REQUIRE(labels.size() > 1000008);
  CHECK(labels.substr(labels.size() - 1000008) == "#999999#" + std::string(1000000, ')'));
}

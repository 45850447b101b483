// Unit tests for stdlib/records.cpp: the record primitives that
// define-record-type's expansion holds as quoted constants are bound to no
// name, and each one checks its arguments when called with anything else.
#include <catch2/catch.hpp>
#include <string>

#include "runtime/error.h"
#include "runtime/eval.h"
#include "stdlib/builtins.h"

namespace kiln {
Value expand_define_record_type(Value form);  // records.cpp
}

using namespace kiln;

// The builtin named `name` quoted somewhere inside the expansion `x`.
static Value find_builtin(Value x, const std::string &name) {
  if (is_builtin(x) && as<Builtin>(x)->name == name) return x;
  if (!is_pair(x)) return NOVALUE;
  Value r = find_builtin(car(x), name);
  return r != NOVALUE ? r : find_builtin(cdr(x), name);
}

static std::string error_of(Value f, std::initializer_list<Value> args) {
  std::vector<Value> argv(args);
  try {
    apply_proc(f, int(argv.size()), argv.data());
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "no error";
}

TEST_CASE("record primitives are unbound and check their arguments", "[records]") {
  Value form =
      eval_string("'(define-record-type point (make-point x y) point? (x point-x set-point-x!) (y point-y))",
                  "records-test");
  Value expansion = expand_define_record_type(form);
  Value make = find_builtin(expansion, "%record-make");
  Value is = find_builtin(expansion, "%record-is?");
  Value ref = find_builtin(expansion, "%record-ref");
  Value set = find_builtin(expansion, "%record-set!");
  REQUIRE(make != NOVALUE);
  REQUIRE(is != NOVALUE);
  REQUIRE(ref != NOVALUE);
  REQUIRE(set != NOVALUE);
  for (const char *name : {"%record-make", "%record-is?", "%record-ref", "%record-set!"})
    CHECK(sym(intern(name))->global == NOVALUE);

  // The record type is the constant the expansion's first define quotes.
  Value def = car(cdr(expansion));  // (define point (quote RT))
  Value rt = car(cdr(car(cdr(cdr(def)))));
  REQUIRE(has_type(rt, T_RECORD_TYPE));
  Value one = make_int(1), who = intern("point-x");

  CHECK(error_of(make, {one}) == "%record-make: argument 1 must be a record type, got 1");
  CHECK(error_of(make, {rt, one}) == "%record-make: a point record has 2 fields, got 1 values");
  CHECK(error_of(is, {one, one}) == "%record-is?: argument 2 must be a record type, got 1");
  CHECK(error_of(ref, {one, make_int(2), make_int(3), make_int(4)}) ==
        "%record-ref: argument 2 must be a record type, got 2");
  CHECK(error_of(ref, {one, rt, make_int(0), make_int(4)}) ==
        "%record-ref: argument 4 must be a symbol, got 4");
  CHECK(error_of(ref, {one, rt, make_int(0), who}) == "point-x: argument 1 must be a point, got 1");
  CHECK(error_of(set, {one, make_int(2), make_int(3), make_int(4), make_int(5)}) ==
        "%record-set!: argument 2 must be a record type, got 2");

  Value args[3] = {rt, make_int(10), make_int(20)};
  Value p = apply_proc(make, 3, args);
  CHECK(error_of(ref, {p, rt, make_int(2), who}) ==
        "%record-ref: argument 3 must be a field index below 2, got 2");
  CHECK(error_of(ref, {p, rt, make_int(-1), who}) ==
        "%record-ref: argument 3 must be a field index below 2, got -1");
  CHECK(error_of(set, {p, rt, intern("x"), one, who}) ==
        "%record-set!: argument 3 must be a field index below 2, got x");
  Value ok[4] = {p, rt, make_int(1), who};
  CHECK(int_of(apply_proc(ref, 4, ok)) == 20);
  Value put[5] = {p, rt, make_int(0), make_int(7), who};
  apply_proc(set, 5, put);
  ok[2] = make_int(0);
  CHECK(int_of(apply_proc(ref, 4, ok)) == 7);
}

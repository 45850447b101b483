// test_analyze.cpp — the analyser's defences against malformed special forms
// (runtime/analyze.cpp): every shape error is a syntax error naming the form,
// and the checked accessors stop a form whose shape a rule forgot to validate.
#include <catch2/catch.hpp>
#include <string>

#include "runtime/analyze_internal.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/printer.h"

using namespace kiln;

namespace {

std::string error_of(const std::string &src) {
  try {
    eval_string(src, "analyze-test");
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "no error";
}

std::string accessor_error(Value (*accessor)(Value), Value v) {
  try {
    accessor(v);
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "no error";
}

}  // namespace

TEST_CASE("analyze: an arrow clause without exactly one receiver is bad syntax", "[analyze]") {
  CHECK(error_of("(case 5 (() =>))") == "case: bad syntax in (case 5 (() =>))");
  CHECK(error_of("(case 1 ((1) => car cdr))") == "case: bad syntax in (case 1 ((1) => car cdr))");
  CHECK(error_of("(cond (1 =>))") == "cond: bad syntax in (cond (1 =>))");
}

TEST_CASE("analyze: checked accessors raise a syntax error on a short form", "[analyze]") {
  Value one = eval_string("'(=>)", "analyze-test");
  CHECK(accessor_error(cadr_, one) == "bad syntax: a form ends too early at (=>)");
  CHECK(accessor_error(cddr_, one) == "bad syntax: a form ends too early at (=>)");
  CHECK(accessor_error(cadr_, NIL) == "bad syntax: a form ends too early at ()");
  CHECK(write_string(cadr_(eval_string("'(a b)", "analyze-test"))) == "b");
}

// test_stdlib_layer.cpp — the standard library without the front doors:
// kiln_stdlib_tests links kiln_stdlib (with the compiler and runtime below it) and
// no file of repl/, so it stops linking when a builtin reaches for the REPL, the
// test runner or the command line. It boots Kiln as an embedder would.
#include <catch2/catch.hpp>

#include "runtime/big_stack.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/printer.h"
#include "stdlib/boot.h"
#include "tests/support/catch_runner.h"

using namespace kiln;

namespace {

std::string eval_text(const char *src) { return write_string(eval_string(src, "stdlib-test")); }

}  // namespace

TEST_CASE("an embedder boots the builtins and the prelude", "[stdlib]") {
  CHECK(eval_text("(map + '(1 2) '(10 20))") == "(11 22)");
  CHECK(eval_text("(tensor-sum (tensor '(1.0 2.0 3.5)))") == "6.5");
  CHECK(eval_text("(graph-grad (lambda (x) (* x x)) 3.0)") == "(9.0 6.0)");  // value, then gradient
  std::string message;
  try {
    eval_string("(car 5)", "stdlib-test");
  } catch (const LispError &) {
    message = error_message_of(g_raised);
  }
  CHECK(message == "car: argument 1 must be a pair, got 5");
}

int main(int argc, char **argv) {
  gc_init();
  init_stack_limit_for_main_thread();
  init_kiln();
  return run_catch_session(argc, argv);
}

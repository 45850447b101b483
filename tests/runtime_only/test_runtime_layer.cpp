// test_runtime_layer.cpp — the runtime on its own (kiln_runtime_tests links no
// other layer, so it stops linking when the runtime references stdlib, compiler
// or repl code), and the extension point foreign types plug into (TypeHooks).
#include <catch2/catch.hpp>

#include "runtime/args.h"
#include "runtime/big_stack.h"
#include "runtime/equal.h"
#include "runtime/eval.h"
#include "runtime/printer.h"
#include "tests/support/catch_runner.h"

using namespace kiln;

namespace {

std::string eval_text(const char *src) { return write_string(eval_string(src, "runtime-test")); }

std::string caught(const char *src) {
  try {
    eval_string(src, "runtime-test");
  } catch (const LispError &) {
    return error_message_of(g_raised);
  }
  return "(no error)";
}

// A foreign type the way the compiler's symbolic values and kernels plug in.
struct Probe {
  ObjHeader h;
  double x;
};
uint8_t g_probe = 0;
Value make_probe(double x) {
  auto *p = alloc_obj<Probe>(g_probe);
  p->x = x;
  return from_ptr(p);
}

}  // namespace

TEST_CASE("the evaluator runs special forms without any builtin", "[runtime]") {
  CHECK(eval_text("(let ((x 2)) (if x 'yes 'no))") == "yes");
  CHECK(eval_text("(define (f . xs) xs) (f 1 2 3)") == "(1 2 3)");
  CHECK(eval_text("(quasiquote (1 (unquote (let () 2)) 3))") == "(1 2 3)");
  CHECK(caught("(car '(1))") == "Undefined variable: car");
}

TEST_CASE("defbuiltin and the argument checkers", "[runtime]") {
  defbuiltin("first-int", 1, 1,
             [](int, Value *argv) { return make_fixnum(arg_int("first-int", 1, argv[0])); });
  CHECK(eval_text("(first-int 41)") == "41");
  CHECK(caught("(first-int \"a\")") == "first-int: argument 1 must be an integer, got \"a\"");
  CHECK(list_length(eval_string("'(1 2 3)", "t")) == 3);
  CHECK(list_length(eval_string("'(1 . 2)", "t")) == -1);
}

TEST_CASE("foreign types plug in through TypeHooks", "[runtime]") {
  g_probe = register_object_type("probe");
  TypeHooks &h = g_type_hooks[g_probe];
  h.print = [](std::string &out, Value v, bool) {
    out += "#<probe " + std::to_string(int(as<Probe>(v)->x)) + ">";
  };
  h.arith = [](const char *op, int argc, Value *argv) -> Value {
    if (std::string(op) != "+" || argc != 2) return NOVALUE;
    double s = 0;
    for (int i = 0; i < 2; i++) s += is_number(argv[i]) ? number_as_double(argv[i]) : as<Probe>(argv[i])->x;
    return make_probe(s);
  };
  h.select = [](Value test, Value a, Value) { return as<Probe>(test)->x > 0 ? a : make_fixnum(-1); };
  h.truth = [](Value, const char *who) { throw_errorf("probe: '{}' cannot tell", who); };
  defglobal("p5", make_probe(5));
  defglobal("p0", make_probe(0));
  CHECK(g_probe > T_OPAQUE);
  CHECK(register_object_type("another") == g_probe + 1);
  CHECK(eval_text("p5") == "#<probe 5>");
  CHECK(eval_text("(if p5 'then 'else)") == "then");  // the select hook decides
  CHECK(eval_text("(if p0 'then 'else)") == "-1");
  CHECK(caught("(and p5 1)") == "probe: 'and' cannot tell");
  CHECK(caught("(or p5 1)") == "probe: 'or' cannot tell");
}

int main(int argc, char **argv) {
  gc_init();
  init_stack_limit_for_main_thread();
  init_runtime();
  return run_catch_session(argc, argv);
}

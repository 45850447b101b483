// test_main.cpp — the unit tests' main: brings the runtime up before any test,
// then runs Catch2 (tests/support/catch_runner.cpp). Catch2 runs this binary at
// build time to list tests, so start-up must be quick and must not depend on
// the working directory.
#include "runtime/big_stack.h"
#include "runtime/eval.h"
#include "stdlib/boot.h"
#include "tests/support/catch_runner.h"

int main(int argc, char **argv) {
  kiln::gc_init();
  kiln::init_stack_limit_for_main_thread();
  kiln::init_kiln();
  return run_catch_session(argc, argv);
}

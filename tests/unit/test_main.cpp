// test_main.cpp — the Catch2 runner: brings the runtime up before any test.
// Catch2 runs this binary at build time to list tests, so start-up must be
// quick and must not depend on the working directory.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "runtime/big_stack.h"
#include "runtime/eval.h"
#include "stdlib/boot.h"

int main(int argc, char **argv) {
  kiln::gc_init();
  kiln::init_stack_limit_for_main_thread();
  kiln::init_kiln();
  return Catch::Session().run(argc, argv);
}

// catch_runner.cpp — the one translation unit holding Catch2's implementation.
// It is the slowest file of the build to compile (Catch2 v2 is a single
// header), so both test binaries link this object rather than each compiling
// it, and CMake builds it at -O0 and without sanitizers: the runner's speed does
// not matter.
#define CATCH_CONFIG_RUNNER
#include "tests/support/catch_runner.h"

#include <catch2/catch.hpp>

int run_catch_session(int argc, char **argv) { return Catch::Session().run(argc, argv); }

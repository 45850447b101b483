// test_runner.h — `kiln test`, the golden-output test runner (docs/testing.md).
//
// Invariant: the runner never evaluates Lisp in its own process. Every test runs
// as a fresh child of the same binary (/proc/self/exe), so one test cannot leak
// state, heap or a crash into another, and the runner holds no Lisp values (it
// may run before or without the collector being set up).
//
// Usage: kiln test [OPTIONS] PATH...   (`kiln test --help` lists the options)
// Exit status: 0 when tests ran and none failed; 1 when one failed or none ran;
// 2 for a usage error.
#pragma once

namespace kiln {

// argv[0] is "test"; the remaining arguments are the options and PATHs.
int run_test_command(int argc, char **argv);

}  // namespace kiln

// main.cpp may call it with or without the namespace.
using kiln::run_test_command;

// Unit tests for runtime/big_stack.cpp's choice of the interpreter's stack size,
// and for error.h's registry of live exceptions, which tells a frame being
// unwound whether a LispError is passing (its backtrace is gathered that way).
#include <catch2/catch.hpp>

#include "runtime/big_stack.h"
#include "runtime/error.h"
#include "runtime/eval.h"

using namespace kiln;

static constexpr size_t MiB = size_t(1) << 20;
static constexpr uint64_t GiB = uint64_t(1) << 30;

TEST_CASE("stack size: a quarter of memory, at least 128 MiB, with no upper bound", "[big_stack]") {
#if !defined(__SANITIZE_ADDRESS__)
  CHECK(interpreter_stack_bytes(nullptr, 16 * GiB) == 4 * GiB);
  CHECK(interpreter_stack_bytes(nullptr, 256 * GiB) == 64 * GiB);
  CHECK(interpreter_stack_bytes(nullptr, 1 * GiB + 12345) == size_t((1 * GiB + 12345) / 4 / MiB * MiB));
  CHECK(interpreter_stack_bytes(nullptr, 256 * MiB) == 128 * MiB);
  CHECK(interpreter_stack_bytes(nullptr, 0) == 128 * MiB);  // memory unknown
  CHECK(interpreter_stack_bytes(nullptr, 16 * GiB) % MiB == 0);
  CHECK(interpreter_stack_bytes("", 16 * GiB) == 4 * GiB);      // empty: unset
  CHECK(interpreter_stack_bytes("lots", 16 * GiB) == 4 * GiB);  // not a number: unset
  // Under an address-space limit, an eighth of it (the reservation counts in full).
  CHECK(interpreter_stack_bytes(nullptr, 4 * GiB, 4 * GiB) == 512 * MiB);
  CHECK(interpreter_stack_bytes(nullptr, 6 * GiB, 6 * GiB) == 768 * MiB);
  CHECK(interpreter_stack_bytes(nullptr, 2 * GiB, 64 * GiB) == 512 * MiB);  // memory is lower
  CHECK(interpreter_stack_bytes(nullptr, 0, 512 * MiB) == 128 * MiB);
  CHECK(interpreter_stack_bytes("64", 4 * GiB, 4 * GiB) == 64 * MiB);
#endif
}

TEST_CASE("stack size: KILN_STACK_MB wins, at least 16", "[big_stack]") {
  CHECK(interpreter_stack_bytes("64", 16 * GiB) == 64 * MiB);
  CHECK(interpreter_stack_bytes("100000", 1 * GiB) == 100000 * MiB);  // beyond memory: asked for
  CHECK(interpreter_stack_bytes("1", 16 * GiB) == 16 * MiB);
  CHECK(interpreter_stack_bytes("-5", 16 * GiB) == 16 * MiB);
  CHECK(interpreter_stack_bytes("99999999999999999999", 16 * GiB) == (size_t(1) << 26) * MiB);
}

TEST_CASE("usable memory is known on Linux", "[big_stack]") { CHECK(usable_memory_bytes() > 64 * MiB); }

TEST_CASE("the LispError being unwound is the newest live exception", "[big_stack]") {
  CHECK(lisp_error_being_unwound() == nullptr);
  {
    LispError outer;
    CHECK(lisp_error_being_unwound() == &outer);
    {
      InterruptThrow other;  // newer, not an error: nothing to add a frame to
      CHECK(lisp_error_being_unwound() == nullptr);
      LispError copy = outer;  // a copy is another live exception, the newest
      CHECK(lisp_error_being_unwound() == &copy);
    }
    CHECK(lisp_error_being_unwound() == &outer);
  }
  CHECK(lisp_error_being_unwound() == nullptr);
  // Out of order (an exception_ptr keeps one alive): each unlinks itself.
  auto *a = new LispError, *b = new LispError;
  delete a;
  CHECK(lisp_error_being_unwound() == b);
  delete b;
  CHECK(lisp_error_being_unwound() == nullptr);
}

TEST_CASE("an error's backtrace is gathered while it unwinds, and only its own", "[big_stack]") {
  eval_string("(define (bt-inner x) (car x)) (define (bt-outer x) (+ 1 (bt-inner x)))", "bt-test");
  try {
    eval_string("(bt-outer 5)", "bt-test");
    FAIL("no error");
  } catch (LispError &e) {
    REQUIRE(e.trace.size() == 2);
    CHECK(e.trace[0].name == "bt-inner");
    CHECK(e.trace[1].name == "bt-outer");
  }
  // Another exception unwinding Lisp frames while an error is alive (caught)
  // adds nothing to that error's backtrace.
  try {
    eval_string("(bt-outer 5)", "bt-test");
  } catch (LispError &e) {
    g_interrupt = 1;
    CHECK_THROWS_AS(eval_string("(bt-outer 5)", "bt-test"), InterruptThrow);
    CHECK(e.trace.size() == 2);
  }
}

// error.h — the one error path.
//
// Invariant: a Lisp error is always a raised Lisp value (usually an error
// object). The value itself lives in the GC root g_raised, never only inside a
// C++ exception object (exception memory comes from malloc, which the collector
// does not scan). LispError carries only plain C++ data: where the error
// happened and the backtrace gathered while it unwinds.
//
// Message shapes (docs/builtins.md), built only by the helpers below:
//   car: argument 1 must be a pair, got 5
//   vector-ref: index 9 out of range for a vector of length 3
//   f: expected 2 arguments, got 1
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.h"

namespace kiln {

struct SrcLoc {
  uint32_t file = 0;  // srcloc.h file table index; 0 = unknown
  uint32_t line = 0;
  uint32_t col = 0;
  bool known() const { return line != 0; }
};

struct TraceEntry {
  std::string name;
  SrcLoc loc;
};

// Base of every exception Kiln throws through Lisp code. While one exists it
// is linked into its thread's list of live exceptions, newest first, so a
// frame being unwound can tell which one passes. (run_closure catches a
// LispError to add its procedure to the backtrace, and past the tenth frame
// sends it on by a jump: jump_unwind.h.) Exceptions nest: one made
// while another is caught or unwinding is newer, and is gone by the time the
// older one goes on unwinding (exception_ptr may keep one alive out of order:
// the destructor unlinks it wherever it is).
class Unwinding {
 public:
  Unwinding(const Unwinding &other) : Unwinding(other.is_error_) {}
  Unwinding &operator=(const Unwinding &) { return *this; }  // keeps its own link
  ~Unwinding();

 protected:
  explicit Unwinding(bool is_error = false);

 private:
  Unwinding *older_;
  bool is_error_;
  friend struct LispError *lisp_error_being_unwound();
};

// Thrown for every raised Lisp value. Read the value from g_raised.
struct LispError : Unwinding {
  LispError() : Unwinding(true) {}
  SrcLoc loc;                     // innermost list being evaluated when raised
  SrcLoc pending;                 // innermost call form of the frame being unwound
  std::vector<TraceEntry> trace;  // active Lisp procedure calls, innermost first
};

// The newest live exception of this thread if it is a LispError, else null:
// called while a frame unwinds, it is the LispError unwinding it.
LispError *lisp_error_being_unwound();

// Thrown by an escape continuation; its values are in g_escape_values.
struct ContinuationThrow : Unwinding {
  explicit ContinuationThrow(uint64_t id) : id(id) {}
  uint64_t id;
};

// Thrown to re-enter a continuation whose call/cc has returned: unwinds to the
// top-level prompt, which reinstates it (continuation.h). Carries nothing: the
// continuation is in a GC root until the prompt takes it.
struct ReentryThrow : Unwinding {
  ReentryThrow() = default;
};

// Thrown when Ctrl-C interrupts an evaluation; guard does not catch it.
struct InterruptThrow : Unwinding {
  InterruptThrow() = default;
};

// Thrown by (exit n); unwinds dynamic-wind and reaches main.
struct ExitThrow : Unwinding {
  explicit ExitThrow(int code) : code(code) {}
  int code;
};

extern Value g_raised;         // GC root: the value being raised
extern Value g_escape_values;  // GC root: values passed to an escape continuation

// Raise any Lisp value (R7RS raise). Consults with-exception-handler handlers.
[[noreturn]] void raise_value(Value obj);
// Makes the error raised when memory runs out even for an error object
// (init_runtime, right after gc_init). gc.h's allocators raise the usual
// "out of memory: cannot allocate N bytes" otherwise.
void init_out_of_memory_error();
// R7RS raise-continuable: returns the handler's value.
Value raise_continuable(Value obj);
// The same for the raise builtins, whose frames a continuation captured in the
// handler may resume (continuation.h): no reentry barrier.
[[noreturn]] void raise_from_lisp(Value obj);
Value raise_continuable_from_lisp(Value obj);

// Raise an error object whose message is `msg` (irritants empty).
[[noreturn]] void throw_error(std::string_view msg);
template <class... A> [[noreturn]] void throw_errorf(fmt::format_string<A...> f, A &&...a) {
  throw_error(fmt::format(f, std::forward<A>(a)...));
}
// Raise an error object with a known source location (reader and syntax errors).
[[noreturn]] void throw_error_at(SrcLoc loc, std::string_view msg, Value irritants = NIL);
// "WHO: argument POS must be EXPECTED, got VALUE"
[[noreturn]] void type_error(std::string_view who, int pos, std::string_view expected, Value got);
// "WHO: index I out of range for a KIND of length N"
[[noreturn]] void range_error(std::string_view who, int64_t index, std::string_view kind, int64_t len);
// "WHO: expected N arguments, got M" (N may be "at least 1", "1 to 2")
[[noreturn]] void arity_error(std::string_view who, int min, int max, int got);

// A value as error messages print it: `write` form, cut at `max_chars`
// characters with `...` appended, so one huge value cannot flood the terminal
// or cost more than the cap to print.
constexpr size_t kErrorValueChars = 1000;
std::string error_value_string(Value v, size_t max_chars = kErrorValueChars);

// The message an uncaught raised value prints after "error: ".
std::string error_message_of(Value raised);

}  // namespace kiln

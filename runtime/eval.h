// eval.h — the evaluator's public face.
//
// Invariant: evaluation happens on the interpreter thread, whose large stack
// (big_stack.h) lets deep non-tail recursion work; check_stack() turns a runaway recursion
// into a catchable "stack overflow" error long before the guard page.
#pragma once
#include <csignal>
#include <string>
#include <string_view>

#include "runtime/object.h"

namespace kiln {

// gc_init, special forms and ports: an evaluator without builtins. A program
// starts with init_kiln() (stdlib/boot.h), which adds the builtins and prelude.
void init_runtime();

Value eval_toplevel(Value form);  // analyse and run one form
// define-record-type expands through the records library, which registers its
// expander here (its record type and accessor objects live above the runtime).
void set_define_record_type_expander(Value (*expand)(Value form));
Value apply_proc(Value f, int argc, Value *argv);                // call any procedure
Value load_file(const std::string &path);                        // read and run a file; last value
bool read_file_text(const std::string &path, std::string *out);  // false if unreadable
Value eval_string(std::string_view src, const std::string &name);

// Set by the SIGINT handler; polled at calls and loop back-edges.
extern volatile std::sig_atomic_t g_interrupt;
[[noreturn]] void throw_interrupt();  // clears g_interrupt, throws InterruptThrow
// Throws InterruptThrow if Ctrl-C arrived. The evaluator polls at every call;
// a builtin or runtime loop whose trip count comes from Lisp data (a count, a
// length, a shape, the size of a structure) polls on each step or chunk, so
// that (iota 9223372036854775807) stops at Ctrl-C like a Lisp loop does.
inline void check_interrupt() {
  if (g_interrupt) [[unlikely]]
    throw_interrupt();
}

// Calls fill(lo, hi) over [0, n) in chunks of `chunk`, polling for Ctrl-C
// between them: filling gigabytes takes tens of seconds while its pages fault
// in, and Ctrl-C must still stop it.
template <class Fill> void fill_in_polled_chunks(int64_t n, int64_t chunk, Fill &&fill) {
  for (int64_t lo = 0; lo < n; lo += chunk) {
    if (lo) check_interrupt();
    fill(lo, lo + chunk < n ? lo + chunk : n);
  }
}

Value macroexpand(Value form);  // expands macro uses at the head until none is left
bool is_special_form_name(Value s);
extern Value g_command_line;  // GC root: the list (command-line) returns

Value make_values(int n, const Value *items);  // a single value is returned as is
bool is_values(Value v);

}  // namespace kiln

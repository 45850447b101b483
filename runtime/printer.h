// printer.h — display and write (docs/language.md).
//
// Invariant: printing never allocates GC memory and never raises (but for
// print_value_interruptible's InterruptThrow), so it is safe inside error
// reporting, and it always terminates: a cycle is printed with
// datum labels, as R7RS write does (`#0=(1 2 . #0#)`), by write and display
// alike; acyclic data, shared or not, prints without labels. Nesting depth
// costs heap, not C stack, so a million nested lists print too.
#pragma once
#include <string>

#include "runtime/value.h"

namespace kiln {

void print_value(std::string &out, Value v, bool write);
// print_value for write and display: Ctrl-C stops it (InterruptThrow), as the
// printed form of a small value can be too long to finish (shared structure).
void print_value_interruptible(std::string &out, Value v, bool write);
// write-shared: like write, but every object met more than once (shared or
// cyclic) gets a datum label: (let ((l (list 1))) (list l l)) prints
// (#0=(1) #0#).
void print_value_shared(std::string &out, Value v);
// At most max_chars characters of the printed value, then `...` when there was
// more; the printing itself stops there, so a huge value costs no more.
void print_value_capped(std::string &out, Value v, bool write, size_t max_chars);
std::string write_string(Value v);
std::string display_string(Value v);
// The float rule of docs/language.md: shortest round-trip digits, always marked as a float.
void format_double(std::string &out, double d);
std::string format_double(double d);

}  // namespace kiln

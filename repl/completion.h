// completion.h — what Tab completes at a given point of the REPL's line.
//
// Invariant: these functions only inspect text and the symbol table; the
// line-editing library glue (line_editor_readline.cpp) turns their answers into
// matches, so the rules can be tested without a terminal.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

enum class CompletionKind {
  none,     // inside a string that is not a file name for load
  name,     // a bound name: global, builtin, macro or special form
  command,  // a REPL command after a leading comma
  file,     // a file name inside the string argument of load / ,load
};

// `line` is the whole input line, `word_start` where the word being completed
// begins (just after an opening `"` when inside a string).
CompletionKind completion_kind(std::string_view line, size_t word_start);

// Every name with a global binding, plus every special form, sorted.
std::vector<std::string> bound_names();

}  // namespace kiln

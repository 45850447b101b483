// syntax_docs.h — what ,describe says about syntax: the special forms and the
// macros of stdlib/prelude.lisp, which have no procedure or doc string of their own.
//
// Invariant: every special form (runtime/analyze.cpp's table) and every
// defmacro of stdlib/prelude.lisp has exactly one entry (tests/repl/test_commands.py
// checks both lists against this one).
#pragma once
#include <string_view>

namespace kiln {

struct SyntaxDoc {
  const char *name;
  const char *usage;  // the shape of a use, "(when TEST BODY...)"
  const char *doc;    // one line
};

// The entry for `name`, or null.
const SyntaxDoc *find_syntax_doc(std::string_view name);

}  // namespace kiln

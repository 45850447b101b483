// entry_scan.h — is a REPL entry complete?
//
// Invariant: the scan follows the reader's lexical rules for everything that
// can hide a bracket — strings (with backslash escapes), `;` line comments,
// nested `#| |#` block comments, `#\x` character literals and `|odd symbol|`
// — so a bracket inside any of them is never counted. It does not parse data;
// the reader reports every other error once the entry is evaluated.
#pragma once
#include <string_view>

namespace kiln {

struct EntryScan {
  int depth = 0;                 // brackets still open
  bool in_string = false;        // inside "..."
  bool in_symbol = false;        // inside |...|
  int block_comment = 0;         // nesting of #| |# still open
  bool unmatched_close = false;  // a ) or ] with nothing open: report it now
  size_t string_start = 0;       // where the open string's `"` is (when in_string)

  // Evaluate now: nothing is left open, or a bracket is unmatched.
  bool complete() const {
    return unmatched_close || (depth == 0 && !in_string && !in_symbol && block_comment == 0);
  }
};

EntryScan scan_entry(std::string_view text);

}  // namespace kiln

#include "repl/entry_scan.h"

namespace kiln {

EntryScan scan_entry(std::string_view text) {
  EntryScan s;
  size_t n = text.size();
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    char next = i + 1 < n ? text[i + 1] : '\0';
    if (s.in_string) {
      if (c == '\\') i++;
      else if (c == '"') s.in_string = false;
    } else if (s.in_symbol) {
      if (c == '\\') i++;
      else if (c == '|') s.in_symbol = false;
    } else if (s.block_comment > 0) {
      if (c == '|' && next == '#') s.block_comment--, i++;
      else if (c == '#' && next == '|') s.block_comment++, i++;
    } else if (c == '"') {
      s.in_string = true;
      s.string_start = i;
    } else if (c == '|') {
      s.in_symbol = true;
    } else if (c == ';') {
      while (i < n && text[i] != '\n') i++;
    } else if (c == '#' && next == '|') {
      s.block_comment = 1;
      i++;
    } else if (c == '#' && next == '\\') {
      i += 2;  // the character after #\ is literal, even a bracket or quote
    } else if (c == '(' || c == '[') {
      s.depth++;
    } else if (c == ')' || c == ']') {
      if (s.depth == 0) {
        s.unmatched_close = true;
        return s;
      }
      s.depth--;
    }
  }
  return s;
}

}  // namespace kiln
